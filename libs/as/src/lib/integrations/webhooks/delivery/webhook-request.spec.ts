import type { ApplicationWebhook } from '@lorawan/api';
import type { Delivery } from './webhook-job';
import { buildWebhookRequest, USER_AGENT } from './webhook-request';

function job(webhook: Partial<ApplicationWebhook>): Delivery {
  return {
    webhook: {
      ids: { application_ids: { application_id: 'foo-app' }, webhook_id: 'foo-hook' },
      base_url: 'https://myapp.com/api/ttn/v3{/appID,devID}',
      format: 'json',
      uplink_message: { path: 'up{?devEUI}' },
      ...webhook,
    },
    up: {
      end_device_ids: { device_id: 'foo-device', application_ids: { application_id: 'foo-app' }, dev_eui: '42FFFFFFFFFFFFFF' },
      correlation_ids: ['as:up:1'],
      uplink_message: { f_port: 42, decoded_payload: { test_key: 42 } },
    },
    kind: 'uplink_message',
    attempt: 1,
  };
}

describe('buildWebhookRequest (wire contract §8.2)', () => {
  it('builds the TTS example: URL, downlink headers from the public address, X-Tts-Domain', () => {
    const req = buildWebhookRequest(
      job({ downlink_api_key: 'NNSXS.KEY', headers: { Authorization: 'Bearer abc', 'content-type': 'text/plain' } }),
      'https://example.com/api/v3',
    );
    expect(req.url.toString()).toBe('https://myapp.com/api/ttn/v3/foo-app/foo-device/up?devEUI=42FFFFFFFFFFFFFF');
    expect(req.headers).toEqual({
      Authorization: 'Bearer abc',
      'Content-Type': 'application/json',
      'User-Agent': USER_AGENT,
      'X-Downlink-Apikey': 'NNSXS.KEY',
      'X-Downlink-Push': 'https://example.com/api/v3/as/applications/foo-app/webhooks/foo-hook/devices/foo-device/down/push',
      'X-Downlink-Replace': 'https://example.com/api/v3/as/applications/foo-app/webhooks/foo-hook/devices/foo-device/down/replace',
      'X-Tts-Domain': 'example.com',
    });
    expect(JSON.parse(req.body)).toEqual(job({}).up);
  });

  it('sends no downlink headers without a downlink API key, and filters the body by the field mask', () => {
    const req = buildWebhookRequest(job({ field_mask: { paths: ['up.uplink_message.decoded_payload'] } }), 'http://localhost:1885/api/v3');
    expect(Object.keys(req.headers).sort()).toEqual(['Content-Type', 'User-Agent', 'X-Tts-Domain']);
    expect(req.headers['X-Tts-Domain']).toBe('localhost:1885');
    expect(JSON.parse(req.body)).toEqual({ uplink_message: { decoded_payload: { test_key: 42 } } });
  });

  it('posts an enabled message without a path to the base URL', () => {
    const req = buildWebhookRequest(
      { ...job({ base_url: 'https://h.example/hook', uplink_message: undefined, join_accept: {} }), kind: 'join_accept' },
      'https://example.com/api/v3',
    );
    expect(req.url.toString()).toBe('https://h.example/hook');
  });

  it('sends every header of the webhook, whatever its name (`__proto__`, `constructor`, `toString`)', () => {
    const headers = JSON.parse('{"__proto__":"a","constructor":"b","toString":"c","hasOwnProperty":"d"}') as Record<string, string>;
    const req = buildWebhookRequest(job({ headers }), 'https://example.com/api/v3');
    expect(Object.entries(req.headers).slice(0, 4)).toEqual([
      ['__proto__', 'a'],
      ['constructor', 'b'],
      ['toString', 'c'],
      ['hasOwnProperty', 'd'],
    ]);
    expect(Object.getPrototypeOf(req.headers)).toBe(Object.prototype);
  });

  it('never sends a header a webhook may not set (stored before Set refused them): hop-by-hop, Host, Content-Length, malformed', () => {
    const headers = {
      Host: 'evil.example',
      'content-length': '0',
      'Transfer-Encoding': 'chunked',
      Connection: 'close',
      'Keep-Alive': 'timeout=5',
      'Proxy-Connection': 'keep-alive',
      TE: 'trailers',
      Trailer: 'X',
      Upgrade: 'h2c',
      'X-Injected': 'a\r\nHost: evil.example',
      'X-Nul': 'a\u0000b',
      'Bad Name': 'x',
      Authorization: 'Bearer abc',
    };
    const req = buildWebhookRequest(job({ headers }), 'https://example.com/api/v3');
    expect(Object.keys(req.headers).sort()).toEqual(['Authorization', 'Content-Type', 'User-Agent', 'X-Tts-Domain']);
    expect(req.headers['Authorization']).toBe('Bearer abc');
  });
});
