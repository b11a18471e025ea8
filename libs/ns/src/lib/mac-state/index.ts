export { newMacState, type NewMacStateInput } from './new-mac-state';
export * from './transitions';
