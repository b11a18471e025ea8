import { Uint32, Str } from '../json/fields';
import { Message, Required } from '../json/nested';
import { EndDevice } from './end-device';
import { FieldMask, FieldMaskField } from './field-mask';
import { ApplicationIdentifiers, EndDeviceIdentifiers } from './identifiers';

export class CreateEndDeviceRequest {
  @Required() @Message(() => EndDevice) end_device!: EndDevice;
}

export class GetEndDeviceRequest {
  @Required() @Message(() => EndDeviceIdentifiers) end_device_ids!: EndDeviceIdentifiers;
  @FieldMaskField() field_mask?: FieldMask;
}

/** `order` values of the seed: a field path, `-` for descending. */
export const END_DEVICE_ORDERS = ['device_id', 'join_eui', 'dev_eui', 'name', 'description', 'created_at'] as const;
export type EndDeviceOrderField = (typeof END_DEVICE_ORDERS)[number];
const ORDER_PATTERN = new RegExp(`^(?:-?(?:${END_DEVICE_ORDERS.join('|')}))?$`);

export class ListEndDevicesRequest {
  @Required() @Message(() => ApplicationIdentifiers) application_ids!: ApplicationIdentifiers;
  @FieldMaskField() field_mask?: FieldMask;
  @Str({ pattern: ORDER_PATTERN }) order?: string;
  @Uint32({ max: 1000 }) limit?: number;
  @Uint32() page?: number;
}

export class UpdateEndDeviceRequest {
  @Required() @Message(() => EndDevice) end_device!: EndDevice;
  @FieldMaskField() field_mask?: FieldMask;
}

export class SetEndDeviceRequest {
  @Required() @Message(() => EndDevice) end_device!: EndDevice;
  @FieldMaskField() field_mask?: FieldMask;
}

/** Delete routes take the identifiers themselves as the request. */
export { EndDeviceIdentifiers as DeleteEndDeviceRequest };
