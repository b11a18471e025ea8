import { ALL_RIGHTS, type CallerIdentity, Right } from '@lorawan/api';
import { visibleEntries } from './list-access';

describe('List entries and secrets', () => {
  const entries = [
    { ids: { gateway_id: 'mine' }, name: 'A', lbs_lns_secret: { value: 'c2VjcmV0' } },
    { ids: { gateway_id: 'theirs' }, name: 'B', lbs_lns_secret: { value: 'c2VjcmV0' } },
  ];
  const held = new Map([
    ['mine', ['RIGHT_GATEWAY_ALL' as Right]],
    ['theirs', ['RIGHT_GATEWAY_INFO' as Right]],
  ]);
  const userKey = (keyRights: readonly Right[]): CallerIdentity => ({
    kind: 'api-key',
    id: 'K',
    owner: { kind: 'user', id: 'u' },
    is_admin: false,
    key_rights: [...keyRights],
    universal: false,
    rights: [],
  });
  const secrets = { paths: ['lbs_lns_secret', 'lbs_lns_secret.value'], right: Right.RIGHT_GATEWAY_READ_SECRETS };
  const list = (caller: CallerIdentity, paths: string[]) =>
    visibleEntries(entries, (e) => e.ids.gateway_id, paths, Right.RIGHT_GATEWAY_INFO, caller, held, secrets);

  it('shows a secret only on the entries where the caller holds the read-secrets right, the other fields everywhere it may read', () => {
    expect(list(userKey(ALL_RIGHTS), ['name', 'lbs_lns_secret'])).toEqual([
      { ids: { gateway_id: 'mine' }, name: 'A', lbs_lns_secret: { value: 'c2VjcmV0' } },
      { ids: { gateway_id: 'theirs' }, name: 'B' },
    ]);
    expect(list(userKey([Right.RIGHT_GATEWAY_INFO]), ['name', 'lbs_lns_secret.value'])).toEqual([
      { ids: { gateway_id: 'mine' }, name: 'A' },
      { ids: { gateway_id: 'theirs' }, name: 'B' },
    ]);
  });
});
