import { describeRegistryStoreConformance } from '@lorawan/registry/conformance';
import { JS_MIGRATIONS } from '../migrations';

describeRegistryStoreConformance('js', JS_MIGRATIONS, true);
