import type { Provider } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { STACK_CONFIG, type StackConfig } from '@lorawan/config';
import { EventPublisher, HealthService } from '@lorawan/component';
import { KeyVault, parseKeks } from '@lorawan/crypto';
import { DeviceTemplateCatalogue, parseDeviceProfile } from '@lorawan/lorawan';
import { type ComponentDataSourceOptions, dataSourceProviders } from '@lorawan/persistence';
import { DEVICE_STORE, type DeviceStore } from './device-record';
import { PLAIN_ENCODER, SharedTextEncoder } from './document-encoder';
import { RegistryDeviceEntity } from './device.entity';
import { type CopySource, DeviceRegistry, type RegistryPolicy, type StoredDevice } from './device-registry';
import { KekSealer, type KeySealer, PLAIN_KEYS } from './key-sealer';
import { TypeOrmDeviceStore } from './typeorm-device.store';

export type RegistryComponent = 'js' | 'ns' | 'as';
type Migrations = ComponentDataSourceOptions['migrations'];

/** A registry component's own database (`<C>_DATABASE_URL`, or `<c>.sqlite` under DATA_DIR). */
export function registryDataSourceOptions(
  component: RegistryComponent,
  migrations: Migrations,
  config: Pick<StackConfig, 'databaseUrls' | 'dataDir' | 'databaseTls'>,
): ComponentDataSourceOptions {
  return { component, url: config.databaseUrls[component], tls: config.databaseTls, dataDir: config.dataDir, entities: [RegistryDeviceEntity], migrations };
}

/** Keys at rest: wrapped with the component's KEK label when KEKS and `<C>_KEK_LABEL` say so. Fails fast on a bad setup. */
export function keySealerFor(component: RegistryComponent, config: Pick<StackConfig, 'keks' | 'kekLabels'>): KeySealer {
  const keks = parseKeks(config.keks);
  const label = config.kekLabels[component];
  if (label !== undefined && !keks.has(label)) throw new Error(`${component.toUpperCase()}_KEK_LABEL "${label}" is not a label of KEKS`);
  return keks.size > 0 ? new KekSealer(new KeyVault(keks), label) : PLAIN_KEYS;
}

/** Copy on create: the template catalogue (bundled plus DEVICE_TEMPLATES_FILE) and the default NS profile. */
export function copySourceFor(config: Pick<StackConfig, 'deviceTemplatesFile' | 'defaultDeviceProfile'>): CopySource {
  const catalogue = DeviceTemplateCatalogue.load(config.deviceTemplatesFile);
  const profile = config.defaultDeviceProfile === undefined ? undefined : (parseDeviceProfile(config.defaultDeviceProfile) as Record<string, unknown>);
  return {
    template: (versionIds) => catalogue.find(versionIds as Parameters<DeviceTemplateCatalogue['find']>[0]) as Record<string, unknown> | undefined,
    profile: () => profile,
  };
}

/**
 * The providers every JS/NS/AS registry component has: its database (health-checked, migrated
 * when DB_AUTO_MIGRATE), its device store and the DeviceRegistry running its policy (which names
 * the events it publishes through the component's EventPublisher).
 */
export function registryProviders<T extends StoredDevice>(
  component: RegistryComponent,
  migrations: Migrations,
  policy: (config: StackConfig) => RegistryPolicy<T>,
): Provider[] {
  return [
    ...dataSourceProviders((config) => registryDataSourceOptions(component, migrations, config), HealthService),
    {
      provide: DEVICE_STORE,
      inject: [DataSource, STACK_CONFIG],
      // The NS rewrites its devices on every uplink from the document it read (shared, never changed in place): their unchanged parts' text is reused.
      useFactory: (ds: DataSource, config: StackConfig) =>
        new TypeOrmDeviceStore(ds, component === 'ns' ? new SharedTextEncoder(config.testChecks) : PLAIN_ENCODER),
    },
    {
      provide: DeviceRegistry,
      inject: [DEVICE_STORE, STACK_CONFIG, EventPublisher],
      useFactory: (store: DeviceStore, config: StackConfig, events: EventPublisher) =>
        new DeviceRegistry<T>(store, policy(config), keySealerFor(component, config), events, copySourceFor(config), {
          sessionCacheSize: component === 'ns' ? config.ns.deviceCacheSize : 0,
          deviceCacheSize: component === 'as' ? config.as.deviceCacheSize : 0,
          freezeShared: config.testChecks,
        }),
    },
  ];
}
