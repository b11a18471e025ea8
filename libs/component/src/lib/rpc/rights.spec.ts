import { type CallerIdentity, type Right, RPCS } from '@lorawan/api';
import { StackError } from '@lorawan/errors';
import { requireRights } from './rights';

const STATUS: Right = 'RIGHT_GATEWAY_STATUS_READ';
const BATCH = RPCS['Gs.BatchGetGatewayConnectionStats'];

function caller(entityRights: Record<string, Right[]>): CallerIdentity {
  return {
    kind: 'api-key',
    id: 'KEY',
    is_admin: false,
    key_rights: [STATUS],
    universal: false,
    rights: [],
    entity_rights: Object.entries(entityRights).map(([id, rights]) => ({ entity: { kind: 'gateway' as const, id }, rights })),
  };
}

function refusal(fn: () => void): { name: string; attributes: Record<string, unknown> } | undefined {
  try {
    fn();
    return undefined;
  } catch (err) {
    if (!(err instanceof StackError)) throw err;
    return { name: err.errorName, attributes: err.attributes };
  }
}

describe('requireRights of a batch (RpcDefinition.entities, TTS AssertGatewayBatchRights)', () => {
  const request = { gateway_ids: [{ gateway_id: 'gtw-a' }, { gateway_id: 'gtw-b' }, { gateway_id: 'gtw-a' }] };
  const check = (c: CallerIdentity | undefined) => () => requireRights({ request_id: 'R', correlation_ids: [], caller: c }, BATCH, request);

  it('allows a caller with the right on every listed gateway', () => {
    expect(refusal(check(caller({ 'gtw-a': [STATUS], 'gtw-b': [STATUS, 'RIGHT_GATEWAY_INFO'] })))).toBeUndefined();
  });

  it('refuses a gateway the caller has no rights on, or lacks the right on, naming it', () => {
    expect(refusal(check(caller({ 'gtw-a': [STATUS] })))).toEqual({ name: 'no_gateway_rights', attributes: { uid: 'gtw-b' } });
    expect(refusal(check(caller({ 'gtw-a': [STATUS], 'gtw-b': ['RIGHT_GATEWAY_INFO'] })))).toEqual({
      name: 'insufficient_gateway_rights',
      attributes: { uid: 'gtw-b', missing: [STATUS] },
    });
  });

  it("does not take the rights of one entity (`rights`) for a batch's gateways, and needs a caller", () => {
    const single: CallerIdentity = { ...caller({}), entity: { kind: 'gateway', id: 'gtw-a' }, rights: [STATUS] };
    expect(refusal(check(single))).toEqual({ name: 'no_gateway_rights', attributes: { uid: 'gtw-a' } });
    expect(refusal(check(undefined))?.name).toBe('unauthenticated');
  });
});
