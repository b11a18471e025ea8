export { copyFieldsOf, DeviceProfile, DEVICE_PROFILE_FIELDS, parseDeviceProfile } from './device-profile';
export { DeviceTemplateCatalogue, type VersionIds } from './catalogue';
export { copyOnCreate } from './copy-on-create';
