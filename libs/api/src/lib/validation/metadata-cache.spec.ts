import { getMetadataStorage, MetadataStorage, ValidateBy, ValidationTypes } from 'class-validator';
import * as api from '../../index';
import { EndDevice } from '../messages/end-device';
import { Str } from '../json/fields';
import { Required } from '../json/nested';
import { decodeMessage } from './decode';
import { installValidationMetadataCache } from './metadata-cache';

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
