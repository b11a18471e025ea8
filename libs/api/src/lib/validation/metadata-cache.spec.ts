import { getMetadataStorage, MetadataStorage, ValidateBy, ValidateIf, ValidationTypes, validateSync } from 'class-validator';
import * as api from '../../index';
import { EndDevice } from '../messages/end-device';
import { Str } from '../json/fields';
import { Required } from '../json/nested';
import { decodeMessage } from './decode';
import { installValidationMetadataCache } from './metadata-cache';
import { decodeInstance } from './instance-decoder';
import { VALIDATOR_OPTIONS } from './validator-options';

describe('validation metadata cache', () => {
  it('is installed on the global storage by decodeMessage and answers as the uncached storage', () => {
    const storage = getMetadataStorage();
    const first = storage.getTargetValidationMetadatas(EndDevice, '', false, false);
    expect(storage.getTargetValidationMetadatas(EndDevice, '', false, false)).toBe(first);
    const uncached = MetadataStorage.prototype.getTargetValidationMetadatas.call(storage, EndDevice, '', false, false);
    expect(first).toEqual(uncached);
    expect(storage.groupByPropertyName(first)).toBe(storage.groupByPropertyName(first));
    expect(storage.groupByPropertyName(first)).toEqual(MetadataStorage.prototype.groupByPropertyName.call(storage, first));
    // Other arguments are other entries.
    expect(storage.getTargetValidationMetadatas(EndDevice, '', true, false)).not.toBe(first);
    expect(storage.getTargetValidationMetadatas(EndDevice, '', false, false, ['g'])).not.toBe(first);
  });

  it('sees metadata added after a lookup (a class declared later, a decorator added later)', () => {
    class Late {
      @Required() a?: string;
    }
    expect(() => decodeMessage(Late, {})).toThrow('value is required');
    expect(decodeMessage(Late, { a: 'x', b: 'dropped' })).toEqual({ a: 'x' });
    Str({ maxLength: 1 })(Late.prototype, 'b');
    expect(() => decodeMessage(Late, { a: 'x', b: 'too long' })).toThrow('at most 1 runes');
    ValidateBy({ name: 'not_x', validator: { validate: (v) => v !== 'x', defaultMessage: () => 'must not be x' } })(Late.prototype, 'a');
    expect(() => decodeMessage(Late, { a: 'x' })).toThrow('must not be x');
  });

  it('is installed once per storage', () => {
    const storage = new MetadataStorage();
    installValidationMetadataCache(storage);
    const get = storage.getTargetValidationMetadatas;
    installValidationMetadataCache(storage);
    expect(storage.getTargetValidationMetadatas).toBe(get);
  });
});

describe('decodeMessage skips the checks of undefined properties', () => {
  it('which is right because every check of the contract but the presence checks accepts undefined', () => {
    const storage = getMetadataStorage();
    const classes = Object.values(api).filter(
      (v): v is new () => object => typeof v === 'function' && storage.getTargetValidationMetadatas(v, '', false, false).length > 0,
    );
    expect(classes).toContain(EndDevice);
    let checked = 0;
    for (const cls of classes) {
      for (const m of storage.getTargetValidationMetadatas(cls, '', false, false)) {
        if (m.type !== ValidationTypes.CUSTOM_VALIDATION) continue;
        for (const c of storage.getTargetValidatorConstraints(m.constraintCls)) {
          // Siblings absent, and siblings all set (to a value the cross-field rules care about).
          for (const object of [{}, new Proxy({}, { get: () => 'FORMATTER_JAVASCRIPT' })]) {
            const args = { targetName: cls.name, property: m.propertyName, object, value: undefined, constraints: m.constraints };
            expect([cls.name, m.propertyName, c.name, c.instance.validate(undefined, args)]).toEqual([cls.name, m.propertyName, c.name, true]);
            checked++;
          }
        }
      }
    }
    expect(checked).toBeGreaterThan(200);
  });
});

describe('an object is checked on the properties it defines', () => {
  const storage = getMetadataStorage();
  /** The lengths of the metadata lists the executor groups while validating `object`. */
  function groupedLengths(object: object): number[] {
    const lengths: number[] = [];
    const group = storage.groupByPropertyName;
    storage.groupByPropertyName = (metadata) => {
      lengths.push(metadata.length);
      return group.call(storage, metadata);
    };
    try {
      validateSync(object, VALIDATOR_OPTIONS);
    } finally {
      storage.groupByPropertyName = group;
    }
    return lengths;
  }
  const all = (cls: new () => object) => storage.getTargetValidationMetadatas(cls, undefined as unknown as string, false, false, undefined).length;

  it('with VALIDATOR_OPTIONS: only the defined properties and the presence checks (class-validator internals still where they were)', () => {
    const device = decodeInstance(EndDevice, { ids: { device_id: 'dev1', application_ids: { application_id: 'app1' } }, name: 'n' });
    const [deviceList, idsList] = groupedLengths(device);
    expect(all(EndDevice)).toBeGreaterThan(50);
    expect(deviceList).toBeLessThan(10);
    expect(idsList).toBeLessThan(all(device.ids.constructor as new () => object));
    // Any other options (here whitelist, which strips what a lookup leaves out): the whole class.
    const lengths: number[] = [];
    const group = storage.groupByPropertyName;
    storage.groupByPropertyName = (metadata) => (lengths.push(metadata.length), group.call(storage, metadata));
    validateSync(device, { ...VALIDATOR_OPTIONS, whitelist: true });
    storage.groupByPropertyName = group;
    expect(lengths[0]).toBe(all(EndDevice));
  });

  it('gives the errors the whole class gives: presence checks of absent properties (with their ValidateIf), checks of defined ones', () => {
    class Gated {
      @Required() a?: string;
      @ValidateIf((o: Gated) => o.c === 'needs-b') @Required() b?: string;
      @Str({ maxLength: 3 }) c?: string;
      @Str({ maxLength: 3 }) d?: string;
    }
    const cases: Array<Record<string, unknown>> = [
      {},
      { a: 'x' },
      { a: 'x', c: 'needs-b' },
      { a: 'x', c: 'needs-b', b: 'y' },
      { a: 'x', d: 'long' },
      { c: 'long' },
      { a: null },
    ];
    for (const plain of cases) {
      const instance = decodeInstance(Gated, plain);
      // The whitelist makes the executor look up the whole class; it strips nothing from a decoded instance.
      const whole = validateSync(instance, { ...VALIDATOR_OPTIONS, whitelist: true });
      const subset = validateSync(instance, VALIDATOR_OPTIONS);
      expect([plain, subset.map((e) => [e.property, e.constraints])]).toEqual([plain, whole.map((e) => [e.property, e.constraints])]);
    }
    expect(() => decodeMessage(Gated, { a: 'x', c: 'needs-b' })).toThrow('value is required');
    expect(decodeMessage(Gated, { a: 'x', c: 'abc' })).toEqual({ a: 'x', c: 'abc' });
  });

  it('past the cached subsets of a class, still checks each object on what it defines', () => {
    class Wide {
      @Required() id?: string;
    }
    const names = Array.from({ length: 10 }, (_, i) => `f${i}`);
    for (const name of names) Str({ maxLength: 2 })(Wide.prototype, name);
    // 2^10 sets of defined fields, beyond what is cached.
    for (let mask = 0; mask < 1024; mask++) {
      const plain: Record<string, string> = { id: 'x' };
      names.forEach((name, i) => (mask & (1 << i) ? (plain[name] = i === mask % 10 ? 'too long' : 'ok') : undefined));
      const failing = names.filter((name, i) => mask & (1 << i) && i === mask % 10);
      const errors = validateSync(decodeInstance(Wide, plain), VALIDATOR_OPTIONS).map((e) => e.property);
      expect([mask, errors]).toEqual([mask, failing]);
    }
  });
});
