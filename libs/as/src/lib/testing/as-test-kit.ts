import type { DataSource } from 'typeorm';
import type { ApplicationUpJson, EventDefinition } from '@lorawan/api';
import type { EventPublisher } from '@lorawan/component';
import type { StackError } from '@lorawan/errors';
import { copySourceFor, DeviceRegistry, keySealerFor, TypeOrmDeviceStore } from '@lorawan/registry';
import { AS_REGISTRY_POLICY } from '../end-devices/as-registry.policy';
import type { ApplicationUpSink } from '../integrations/application-up-sink';

/**
 * What the AS integration specs share: the error a call rejects with, a recording event publisher
 * and integration sink, and the AS device registry on a test data source. Imported by specs only;
 * no jest globals here, so it type-checks with the library.
 */

/** The StackError the promise rejects with (or the call throws); throws if it succeeds. */
export async function errorOf(call: Promise<unknown> | (() => unknown)): Promise<StackError> {
  try {
    await (typeof call === 'function' ? call() : call);
  } catch (err) {
    return err as StackError;
  }
  throw new Error('expected an error');
}

/** An event as the recording publisher saw it. */
export interface RecordedEvent {
  name: string;
  data: unknown;
  correlation_ids: string[];
  identifiers: unknown;
}

/** An EventPublisher that appends every event (its data cloned at publish time) to `into`. */
export function recordingPublisher(into: RecordedEvent[]): EventPublisher {
  const recorder: Pick<EventPublisher, 'publish'> = {
    publish: (def: EventDefinition, identifiers, options = {}) => {
      into.push({ name: def.name, data: structuredClone(options.data), correlation_ids: options.ctx?.correlation_ids ?? [], identifiers });
      return {} as ReturnType<EventPublisher['publish']>;
    },
  };
  return recorder as EventPublisher;
}

/** An ApplicationUpSink that records a clone of each message in `ups`, or rejects with `failWith` when set. */
export class RecordingSink implements ApplicationUpSink {
  readonly ups: ApplicationUpJson[] = [];
  failWith?: Error;

  async publish(up: ApplicationUpJson): Promise<void> {
    if (this.failWith) throw this.failWith;
    this.ups.push(structuredClone(up));
  }
}

/**
 * The AS device registry on `ds`: the AS policy, no KEKs. `events` is the publisher of the
 * registry's own events (specs pass `unobservedEvents()` from `@lorawan/registry/conformance`,
 * which this file cannot import: that entry point uses jest globals and is not part of the build).
 */
export function asRegistry(ds: DataSource, events: EventPublisher): DeviceRegistry {
  return new DeviceRegistry(new TypeOrmDeviceStore(ds), AS_REGISTRY_POLICY, keySealerFor('as', { keks: undefined, kekLabels: {} }), events, copySourceFor({}));
}
