import { CreateEndDevices1732240000000 } from './1732240000000-create-end-devices';
import { CreateIdentityEntities1732600000000 } from './1732600000000-create-identity-entities';
import { CreateApiKeys1732600001000 } from './1732600001000-create-api-keys';
import { CreateClients1732600005000 } from './1732600005000-create-clients';
import { CreateOrganizations1732600006000 } from './1732600006000-create-organizations';
import { CreateEndDeviceCounts1732600007000 } from './1732600007000-create-end-device-counts';

/** The Identity Server's migrations, in order. */
export const IS_MIGRATIONS = [
  CreateEndDevices1732240000000,
  CreateIdentityEntities1732600000000,
  CreateApiKeys1732600001000,
  CreateClients1732600005000,
  CreateOrganizations1732600006000,
  CreateEndDeviceCounts1732600007000,
];
