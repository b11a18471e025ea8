import { describeRegistryStoreConformance } from '@lorawan/registry/conformance';
import { AS_MIGRATIONS } from '../migrations';

describeRegistryStoreConformance('as', AS_MIGRATIONS, false);
