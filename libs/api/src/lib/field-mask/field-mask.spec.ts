import { applyFields, checkFieldMaskPaths, hasAnyField, normalizePaths, selectFields, touchesField } from './field-mask';
import { ALLOWED_PATHS } from './allowed-paths';
import { StackError } from '@lorawan/errors';

const device = {
  ids: { device_id: 'dev1', application_ids: { application_id: 'app1' }, dev_eui: '0102030405060708' },
  name: 'n',
  description: 'd',
  version_ids: { brand_id: 'b', model_id: 'm' },
  attributes: { k: 'v' },
};

describe('field masks', () => {
  it('a parent path selects the whole subtree; a child path only its leaf', () => {
    expect(selectFields(device, ['version_ids'])).toEqual({ version_ids: { brand_id: 'b', model_id: 'm' } });
    expect(selectFields(device, ['version_ids.brand_id', 'name'])).toEqual({ version_ids: { brand_id: 'b' }, name: 'n' });
    expect(selectFields(device, ['ids.device_id', 'ids'])).toEqual({ ids: device.ids });
  });

  it('skips absent paths instead of inventing them', () => {
    expect(selectFields(device, ['picture', 'locations'])).toEqual({});
  });

  it('update: masked paths take the source value, absent ones are cleared, others kept', () => {
    const out = applyFields(device, { name: 'new', version_ids: { model_id: 'x' } }, ['name', 'description', 'version_ids.model_id']);
    expect(out).toEqual({ ...device, name: 'new', description: undefined, version_ids: { brand_id: 'b', model_id: 'x' } });
    expect('description' in out).toBe(false);
    expect(device.name).toBe('n'); // the target is not mutated
  });

  it('hasAnyField is true for the path or a requested parent', () => {
    expect(hasAnyField(['root_keys'], 'root_keys.app_key.key')).toBe(true);
    expect(hasAnyField(['root_keys.app_key.key'], 'root_keys')).toBe(false);
    expect(touchesField(['root_keys.app_key.key'], 'root_keys')).toBe(true);
  });

  it('normalizes duplicate and covered paths', () => {
    expect(normalizePaths(['ids.device_id', 'name', 'ids', 'name'])).toEqual(['ids', 'name']);
  });

  it('rejects paths outside the allowed list, naming each once', () => {
    try {
      checkFieldMaskPaths(['name', 'root_keys', 'session', 'root_keys'], ALLOWED_PATHS['EndDeviceRegistry.Get']);
      throw new Error('expected a rejection');
    } catch (err) {
      expect(err).toBeInstanceOf(StackError);
      expect((err as StackError).toDetails()).toMatchObject({
        namespace: 'pkg/rpcmiddleware/validator',
        name: 'field_mask_paths',
        attributes: { forbidden_paths: ['root_keys', 'session'] },
      });
    }
  });

  it('IS allowed paths: the seed IS fields only; ids are not updatable', () => {
    const get = ALLOWED_PATHS['EndDeviceRegistry.Get'];
    for (const p of ['ids', 'ids.dev_eui', 'name', 'description', 'attributes', 'version_ids.brand_id', 'locations', 'picture', 'created_at'])
      expect(get.has(p)).toBe(true);
    for (const p of ['serial_number', 'claim_authentication_code', 'activated_at', 'version_ids.band_id', 'root_keys']) expect(get.has(p)).toBe(false);
    const update = ALLOWED_PATHS['EndDeviceRegistry.Update'];
    for (const p of ['ids', 'ids.device_id', 'created_at', 'updated_at']) expect(update.has(p)).toBe(false);
    expect(update.has('name')).toBe(true);
  });
});
