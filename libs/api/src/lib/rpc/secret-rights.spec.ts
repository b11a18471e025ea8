import { Gateway } from '../messages/identity';
import { secretFieldsOf, secretPathsOf } from '../field-mask/secret-paths';
import { RPCS, requiredRights } from './rpc-table';
import { Right } from './rights';

describe('gateway secrets (contract-derived)', () => {
  it('finds the Secret fields of Gateway without a list', () => {
    expect(secretFieldsOf(Gateway)).toEqual(['lbs_lns_secret', 'target_cups_key']);
    expect(secretPathsOf(Gateway)).toEqual([
      'lbs_lns_secret',
      'lbs_lns_secret.key_id',
      'lbs_lns_secret.value',
      'target_cups_key',
      'target_cups_key.key_id',
      'target_cups_key.value',
    ]);
  });

  it('reading them needs RIGHT_GATEWAY_READ_SECRETS, writing them RIGHT_GATEWAY_WRITE_SECRETS; other paths do not', () => {
    const get = (paths: string[]) => requiredRights(RPCS['GatewayRegistry.Get'], { gateway_ids: { gateway_id: 'g' }, field_mask: { paths } });
    expect(get(['lbs_lns_secret'])).toEqual([Right.RIGHT_GATEWAY_INFO, Right.RIGHT_GATEWAY_READ_SECRETS]);
    expect(get(['target_cups_key.value'])).toEqual([Right.RIGHT_GATEWAY_INFO, Right.RIGHT_GATEWAY_READ_SECRETS]);
    expect(get(['name', 'target_cups_uri'])).toEqual([Right.RIGHT_GATEWAY_INFO]);
    const update = (paths: string[]) => requiredRights(RPCS['GatewayRegistry.Update'], { gateway: { ids: { gateway_id: 'g' } }, field_mask: { paths } });
    expect(update(['lbs_lns_secret'])).toEqual([Right.RIGHT_GATEWAY_SETTINGS_BASIC, Right.RIGHT_GATEWAY_WRITE_SECRETS]);
    expect(update(['name'])).toEqual([Right.RIGHT_GATEWAY_SETTINGS_BASIC]);
    // A List's rights are on a user: the IS leaves out the secrets of each entry the caller may not read.
    expect(RPCS['GatewayRegistry.List'].maskRights ?? []).toEqual([]);
  });
});
