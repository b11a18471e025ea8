import { AddAsPendingDevAddr1733000000000 } from './1733000000000-add-pending-dev-addr';
import { CreateAsEndDevices1732500000000 } from './1732500000000-create-as-end-devices';
import { CreateWebhooks1732700000000 } from './1732700000000-create-webhooks';
import { CreateApplicationLinks1732800000000 } from './1732800000000-create-application-links';
import { WidenSettingsColumns1732900000000 } from './1732900000000-widen-settings-columns';
import { CreateWebhookJobs1733100000000 } from './1733100000000-create-webhook-jobs';
import { CreateStorageIntegration1733200000000 } from './1733200000000-create-storage-integration';
import { CreatePubSubs1733300000000 } from './1733300000000-create-pubsubs';

/** The Application Server's migrations, in order. */
export const AS_MIGRATIONS = [
  CreateAsEndDevices1732500000000,
  CreateWebhooks1732700000000,
  CreateApplicationLinks1732800000000,
  WidenSettingsColumns1732900000000,
  AddAsPendingDevAddr1733000000000,
  CreateWebhookJobs1733100000000,
  CreateStorageIntegration1733200000000,
  CreatePubSubs1733300000000,
];
