// Jest takes the teardown from a module of its own (see global-services.ts).
export { teardown as default } from './global-services';
