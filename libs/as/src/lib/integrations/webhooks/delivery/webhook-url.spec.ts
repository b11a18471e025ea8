import { urlVariables, webhookUrl } from './webhook-url';

const ids = {
  device_id: 'foo-device',
  application_ids: { application_id: 'foo-app' },
  dev_eui: '42ffffffffffffff',
  join_eui: '4200000000000000',
  dev_addr: '01020304',
};
const vars = urlVariables(ids);

describe('webhook URL (wire contract §8.2)', () => {
  it('expands and joins the TTS example', () => {
    expect(webhookUrl('https://myapp.com/api/ttn/v3{/appID,devID}', 'up{?devEUI}', vars).toString()).toBe(
      'https://myapp.com/api/ttn/v3/foo-app/foo-device/up?devEUI=42FFFFFFFFFFFFFF',
    );
  });

  it('offers every variable, EUIs and DevAddr upper-case, appEUI = joinEUI', () => {
    expect(vars).toEqual({
      appID: 'foo-app',
      applicationID: 'foo-app',
      devID: 'foo-device',
      deviceID: 'foo-device',
      devEUI: '42FFFFFFFFFFFFFF',
      joinEUI: '4200000000000000',
      appEUI: '4200000000000000',
      devAddr: '01020304',
    });
    expect(webhookUrl('https://h.example/{applicationID}/{deviceID}', '/x{?joinEUI,appEUI,devAddr}', vars).toString()).toBe(
      'https://h.example/foo-app/foo-device/x?joinEUI=4200000000000000&appEUI=4200000000000000&devAddr=01020304',
    );
  });

  it.each([
    ['https://h.example/base', '/up', 'https://h.example/base/up'],
    ['https://h.example/base/', '/up', 'https://h.example/base/up'],
    ['https://h.example/base/', 'up', 'https://h.example/base/up'],
    ['https://h.example/base', 'up', 'https://h.example/base/up'],
    ['https://h.example', '/up', 'https://h.example/up'],
    ['https://h.example/base', '', 'https://h.example/base'],
    ['https://h.example/base', undefined, 'https://h.example/base'],
    ['https://h.example/base?k=1', '', 'https://h.example/base?k=1'],
    ['https://h.example/base', '?q=1', 'https://h.example/base?q=1'],
    ['https://h.example/base?k=1', '?q=1', 'https://h.example/base?q=1'],
    ['https://h.example/base?k=1', '/up?q=1', 'https://h.example/base/up?q=1'],
    ['https://h.example/a/b', '../c', 'https://h.example/a/c'],
    ['http://127.0.0.1:8080/hooks', '/up/{devID}', 'http://127.0.0.1:8080/hooks/up/foo-device'],
  ])('joins %s + %s → %s', (base, path, expected) => {
    expect(webhookUrl(base, path, vars).toString()).toBe(expected);
  });

  it('leaves out variables the device does not have', () => {
    const bare = urlVariables({ device_id: 'd1', application_ids: { application_id: 'a1' } });
    expect(webhookUrl('https://h.example{/devEUI}', 'up{?devAddr}', bare).toString()).toBe('https://h.example/up');
  });

  it('percent-encodes values in simple expansions', () => {
    expect(webhookUrl('https://h.example/{devID}', '', { devID: 'a b/c' }).toString()).toBe('https://h.example/a%20b%2Fc');
  });

  it('throws on a base URL that is not absolute', () => {
    expect(() => webhookUrl('/relative', '/up', vars)).toThrow();
  });
});
