import { IS_TEST_DATABASES, type OpenedDatabase, testGatewaySecrets } from '../../is-test-databases.conformance';
import { TypeOrmApplicationStore } from '../applications/typeorm-application.store';
import { TypeOrmGatewayStore } from '../gateways/typeorm-gateway.store';
import { TypeOrmOrganizationStore } from '../organizations/typeorm-organization.store';
import { TypeOrmUserStore } from '../users/typeorm-user.store';
import { type CollaboratorStoresUnderTest, describeCollaboratorStoreConformance } from './collaborator.store.conformance';
import { TypeOrmCollaboratorStore } from './typeorm-collaborator.store';

function storesOn({ ds, close }: OpenedDatabase): CollaboratorStoresUnderTest {
  return {
    users: new TypeOrmUserStore(ds),
    applications: new TypeOrmApplicationStore(ds),
    gateways: new TypeOrmGatewayStore(ds, testGatewaySecrets()),
    organizations: new TypeOrmOrganizationStore(ds),
    collaborators: new TypeOrmCollaboratorStore(ds),
    close,
  };
}

for (const [name, open] of IS_TEST_DATABASES) describeCollaboratorStoreConformance(name, async () => storesOn(await open()));
