import { CreateEndDevices1732240000000 } from './1732240000000-create-end-devices';

/** The Identity Server's migrations, in order. */
export const IS_MIGRATIONS = [CreateEndDevices1732240000000];
