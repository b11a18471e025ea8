import { AddJsPendingDevAddr1733000000000 } from './1733000000000-add-pending-dev-addr';
import { CreateJsEndDevices1732500000000 } from './1732500000000-create-js-end-devices';
import { CreateJsSessionKeys1732600000000 } from './1732600000000-create-js-session-keys';

/** The Join Server's migrations, in order. */
export const JS_MIGRATIONS = [CreateJsEndDevices1732500000000, CreateJsSessionKeys1732600000000, AddJsPendingDevAddr1733000000000];
