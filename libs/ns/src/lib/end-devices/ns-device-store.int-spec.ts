import { describeRegistryStoreConformance } from '@lorawan/registry/conformance';
import { NS_MIGRATIONS } from '../migrations';

describeRegistryStoreConformance('ns', NS_MIGRATIONS, true);
