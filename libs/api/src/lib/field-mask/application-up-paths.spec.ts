import { isStackError, type ErrorDetails } from '@lorawan/errors';
import { SetApplicationWebhookRequest } from '../messages/webhooks';
import { decodeMessage } from '../validation/decode';
import { APPLICATION_UP_PATHS, MAX_WEBHOOK_FIELD_MASK_PATHS, WEBHOOK_FIELD_MASK_PATHS } from './application-up-paths';

const ids = { webhook_id: 'wh-1', application_ids: { application_id: 'app-1' } };
const withMask = (field_mask: unknown) => ({ webhook: { ids, base_url: 'https://example.com', field_mask }, field_mask: { paths: ['field_mask'] } });

/** The innermost `field: reason` of a validation error, and the chain's fields. */
function refusal(body: unknown): { fields: string[]; reason: string } {
  let thrown: unknown;
  try {
    decodeMessage(SetApplicationWebhookRequest, body);
  } catch (err) {
    thrown = err;
  }
  if (!isStackError(thrown)) throw new Error('expected a validation error');
  const fields: string[] = [];
  let details: ErrorDetails = thrown.toDetails();
  for (;;) {
    expect(`${details.namespace}:${details.name}`).toBe('pkg/errors:validation');
    fields.push(String(details.attributes?.field));
    if (!details.cause) return { fields, reason: String(details.attributes?.reason) };
    details = details.cause;
  }
}

describe('webhook field_mask: ApplicationUp paths', () => {
  it("holds TTS's ApplicationUp paths, and the oneof's also without `up.`", () => {
    expect(APPLICATION_UP_PATHS).toHaveLength(233);
    expect(APPLICATION_UP_PATHS).toEqual(
      expect.arrayContaining(['end_device_ids', 'correlation_ids', 'up', 'up.uplink_message.decoded_payload', 'up.join_accept']),
    );
    expect(WEBHOOK_FIELD_MASK_PATHS.has('uplink_message.decoded_payload')).toBe(true);
    expect(WEBHOOK_FIELD_MASK_PATHS.has('uplink_message.decoded_payload.temperature')).toBe(false);
    expect(MAX_WEBHOOK_FIELD_MASK_PATHS).toBe(233);
  });

  it('accepts every allowed path, as {"paths":[…]} or "a,b", and as many paths as ApplicationUp has', () => {
    for (const path of WEBHOOK_FIELD_MASK_PATHS)
      expect(decodeMessage(SetApplicationWebhookRequest, withMask({ paths: [path] })).webhook.field_mask?.paths).toEqual([path]);
    expect(decodeMessage(SetApplicationWebhookRequest, withMask('end_device_ids,up.uplink_message.f_port')).webhook.field_mask?.paths).toEqual([
      'end_device_ids',
      'up.uplink_message.f_port',
    ]);
    expect(decodeMessage(SetApplicationWebhookRequest, withMask({ paths: APPLICATION_UP_PATHS })).webhook.field_mask?.paths).toHaveLength(233);
  });

  it('refuses a path that is not of ApplicationUp, naming it', () => {
    expect(refusal(withMask({ paths: ['end_device_ids', 'up.uplink_message.nope'] }))).toEqual({
      fields: ['webhook', 'field_mask'],
      reason: 'path "up.uplink_message.nope" is not a field path of ApplicationUp',
    });
  });

  it('refuses a 70 000-character path without echoing it', () => {
    const { fields, reason } = refusal(withMask({ paths: ['a'.repeat(70_000)] }));
    expect(fields).toEqual(['webhook', 'field_mask']);
    expect(reason).toBe(`path "${'a'.repeat(100)}…" is not a field path of ApplicationUp`);
  });

  it('refuses more paths than ApplicationUp has, before looking at them', () => {
    for (const paths of [Array(234).fill('end_device_ids'), Array.from({ length: 20_000 }, (_, i) => `p${i}`)]) {
      expect(refusal(withMask({ paths }))).toEqual({ fields: ['webhook', 'field_mask'], reason: 'value must contain no more than 233 path(s)' });
    }
  });
});
