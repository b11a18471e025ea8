import { CreateJsEndDevices1732500000000 } from './1732500000000-create-js-end-devices';

/** The Join Server's migrations, in order. */
export const JS_MIGRATIONS = [CreateJsEndDevices1732500000000];
