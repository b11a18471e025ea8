import { applicationCacheProvider, type ApplicationCache } from '../../common/application-cache';
import { PACKAGE_ASSOCIATION_STORE, type PackageAssociationStore, type PackageUsage } from './package-association.store';

/** Each application's package usage (which packages its default associations and its devices' associations name), per replica. */
export const PACKAGE_USAGE_CACHE = Symbol('PACKAGE_USAGE_CACHE');
export type PackageUsageCache = ApplicationCache<ReadonlyMap<string, PackageUsage>>;

/** The cache's provider: loaded from the association store, dropped on every replica by the registry's writes. */
export const PACKAGE_USAGE_CACHE_PROVIDER = applicationCacheProvider(
  PACKAGE_USAGE_CACHE,
  'packages',
  PACKAGE_ASSOCIATION_STORE,
  (store: PackageAssociationStore, app) => store.usage(app),
);
