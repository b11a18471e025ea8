import { AddNsPendingDevAddr1733000000000 } from './1733000000000-add-pending-dev-addr';
import { CreateNsEndDevices1732500000000 } from './1732500000000-create-ns-end-devices';

/** The Network Server's migrations, in order. */
export const NS_MIGRATIONS = [CreateNsEndDevices1732500000000, AddNsPendingDevAddr1733000000000];
