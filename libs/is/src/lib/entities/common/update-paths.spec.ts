import { effectiveUpdatePaths } from './update-paths';

const rules = { readOnly: ['ids', 'ids.gateway_id'], ignored: ['created_at', 'updated_at'], whole: ['administrative_contact'] };

describe('effectiveUpdatePaths', () => {
  it('refuses read-only paths by name', () => {
    expect(() => effectiveUpdatePaths(['name', 'ids.gateway_id'], rules)).toThrow(
      expect.objectContaining({ errorName: 'read_only_field', attributes: { field: 'ids.gateway_id' } }),
    );
    expect(() => effectiveUpdatePaths(['ids'], rules)).toThrow(expect.objectContaining({ errorName: 'read_only_field' }));
  });

  it('drops server-managed paths, flattens whole messages, normalises', () => {
    expect(effectiveUpdatePaths(['name', 'created_at', 'administrative_contact.user_ids.user_id', 'ids.eui', 'name'], rules)).toEqual([
      'administrative_contact',
      'ids.eui',
      'name',
    ]);
    expect(effectiveUpdatePaths(['updated_at'], rules)).toEqual([]);
  });
});
