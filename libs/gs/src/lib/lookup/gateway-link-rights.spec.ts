import type { CallerIdentity, EntityRef, Right } from '@lorawan/api';
import { ErrApiKeyNotFound, ErrInvalidToken, type StackError } from '@lorawan/errors';
import { assertGatewayLink } from './gateway-link-rights';

describe('assertGatewayLink (TTS semtechws withForwardedAuth + AssertGatewayRights)', () => {
  const gateway = { ids: { gateway_id: 'gtw-1', eui: '0102030405060708' }, frequency_plan_ids: ['EU_863_870'] };
  const asked: Array<[string, EntityRef]> = [];
  /** An Identity Server double: one key, with `rights` on gtw-1. */
  const isWith =
    (rights: Right[]) =>
    async (authorization: string, entity: EntityRef): Promise<CallerIdentity> => {
      asked.push([authorization, entity]);
      if (authorization === 'Bearer NNSXS.MALFORMED') throw ErrInvalidToken.with().toDetails();
      if (authorization !== 'Bearer NNSXS.KEY.SECRET') throw ErrApiKeyNotFound.with().toDetails();
      return { kind: 'api-key', id: 'KEY', is_admin: false, key_rights: rights, universal: false, entity, rights };
    };
  const refusal = (p: Promise<void>) =>
    p.then(
      () => 'ok',
      (err: StackError) => `${err.code} ${err.errorName}`,
    );

  beforeEach(() => (asked.length = 0));

  it('a key with RIGHT_GATEWAY_LINK on the gateway links it, with or without "Bearer"', async () => {
    const is = isWith(['RIGHT_GATEWAY_LINK']);
    expect(await refusal(assertGatewayLink(gateway, 'Bearer NNSXS.KEY.SECRET', is))).toBe('ok');
    expect(await refusal(assertGatewayLink(gateway, 'NNSXS.KEY.SECRET', is))).toBe('ok');
    expect(await refusal(assertGatewayLink(gateway, '  bearer NNSXS.KEY.SECRET ', isWith(['RIGHT_GATEWAY_LINK'])))).toBe('ok');
    expect(asked.map(([auth, entity]) => [auth, entity])).toEqual([
      ['Bearer NNSXS.KEY.SECRET', { kind: 'gateway', id: 'gtw-1' }],
      ['Bearer NNSXS.KEY.SECRET', { kind: 'gateway', id: 'gtw-1' }],
      ['Bearer NNSXS.KEY.SECRET', { kind: 'gateway', id: 'gtw-1' }],
    ]);
  });

  it('refuses a key without the right (403), an unknown or malformed one (401, the IS error as cause), and none where the gateway requires one (401)', async () => {
    expect(await refusal(assertGatewayLink(gateway, 'Bearer NNSXS.KEY.SECRET', isWith(['RIGHT_GATEWAY_INFO'])))).toBe('7 insufficient_rights');
    const unknown = await assertGatewayLink(gateway, 'NNSXS.OTHER.SECRET', isWith(['RIGHT_GATEWAY_LINK'])).catch((err: StackError) => err);
    expect(unknown).toMatchObject({ code: 16, errorName: 'unauthenticated', details: { name: 'api_key_not_found' } });
    expect(await refusal(assertGatewayLink(gateway, 'NNSXS.MALFORMED', isWith([])))).toBe('16 unauthenticated');
    expect(await refusal(assertGatewayLink({ ...gateway, require_authenticated_connection: true }, undefined, isWith([])))).toBe('16 no_auth_provided');
    expect(await refusal(assertGatewayLink({ ...gateway, require_authenticated_connection: true }, ' ', isWith([])))).toBe('16 no_auth_provided');
    // Not required: no key is fine, and the IS is not asked.
    expect(await refusal(assertGatewayLink(gateway, undefined, isWith([])))).toBe('ok');
    expect(asked.filter(([auth]) => auth === undefined)).toEqual([]);
  });

  it('an Identity Server that does not answer is an outage (503), not a refusal, and the key is in no error', async () => {
    const away = async (): Promise<CallerIdentity> => {
      throw new Error('no responders');
    };
    const err = (await assertGatewayLink(gateway, 'Bearer NNSXS.KEY.SECRET', away).catch((e: StackError) => e)) as StackError;
    expect(err).toMatchObject({ code: 14, errorName: 'identity_server_unavailable' });
    expect(JSON.stringify(err.toDetails())).not.toContain('SECRET');
  });
});
