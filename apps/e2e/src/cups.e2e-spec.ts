/**
 * CUPS (`POST /update-info`) for LoRa Basics Station gateways end to end, in both run modes, with a
 * CUPS client written here from the Basics Station specification ("The CUPS Protocol"): it posts
 * its router EUI, URIs and the CRC-32 of the credentials it holds, and reads the binary answer by
 * the specification's layout (cupsUriLen(1) cupsUri, tcUriLen(1) tcUri, cupsCredLen(2 LE) cupsCred,
 * tcCredLen(2 LE) tcCred, sigLen(4 LE) sig, updLen(4 LE) upd) and a credentials segment as the
 * station splits it (trust certificate in DER, client certificate or four zero bytes, then the
 * key: for a token, the HTTP header line). An operator rotates the gateway's LNS key
 * (`lbs_lns_secret`); the station learns it through CUPS, connects to the LNS over `wss://` with
 * it, and the old key, once revoked, is refused. The CUPS key is rotated the same way
 * (`target_cups_key`) and the station moved to another CUPS server (`target_cups_uri`). The secret is sealed at rest (`IS_KEK_LABEL`), is
 * readable only with RIGHT_GATEWAY_READ_SECRETS and never shows in the stack's logs.
 */
import { X509Certificate } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { crc32 } from 'node:zlib';
import { freePort, makeCertificates, SimulatedBasicStation, startDistributedStack, startEmbeddedStack, type StackUnderTest } from '@lorawan/testing';
import { randomEui, uid } from './devices';
import { ADMIN_USER_ID, Api, expectStatus, expectTtsError } from './http-client';

const ALL = ['is', 'js', 'ns', 'as', 'events', 'gs'] as const;
type Start = (env: Record<string, string>) => Promise<StackUnderTest>;
const MODES: Array<[string, Start]> = [
  ['distributed', (env) => startDistributedStack({ components: [...ALL], env })],
  ['embedded', (env) => startEmbeddedStack({ env })],
];

/** A station's credentials as its three files: trust (DER), client certificate (none: empty), key (the token's header line). */
interface Credentials {
  trust: Buffer;
  cert: Buffer;
  key: Buffer;
}

/** `sys_crcCred`: CRC-32 over the trust, certificate and key files in turn, an empty one counting as four zero bytes. */
function credentialsCrc(c: Credentials): number {
  const none = Buffer.alloc(4);
  let crc = 0;
  for (const part of [c.trust, c.cert, c.key]) crc = crc32(part.length > 0 ? part : none, crc);
  return crc;
}

/** The answer segments, read by the specification's layout; throws on a short or over-long answer. */
function parseUpdateInfoAnswer(b: Buffer) {
  let at = 0;
  const take = (n: number) => {
    if (at + n > b.length) throw new Error(`answer ends at ${b.length}, segment wants ${at + n}`);
    const part = b.subarray(at, at + n);
    at += n;
    return part;
  };
  const cupsUri = take(take(1).readUInt8(0)).toString('utf8');
  const tcUri = take(take(1).readUInt8(0)).toString('utf8');
  const cupsCred = take(take(2).readUInt16LE(0));
  const tcCred = take(take(2).readUInt16LE(0));
  const sig = take(take(4).readUInt32LE(0));
  const upd = take(take(4).readUInt32LE(0));
  if (at !== b.length) throw new Error(`${b.length - at} bytes after the update`);
  return { cupsUri, tcUri, cupsCred, tcCred, sig, upd };
}

/** The length of the DER element at the start of `b` (a certificate is one SEQUENCE). */
function derLength(b: Buffer): number {
  if (b[0] !== 0x30) throw new Error('the trust is not a DER SEQUENCE');
  const first = b[1];
  if (first < 0x80) return 2 + first;
  const n = first & 0x7f;
  return 2 + n + b.subarray(2, 2 + n).reduce((acc, byte) => acc * 256 + byte, 0);
}

/** A credentials segment split as station does (`sys_credComplete`): trust, then the client certificate or four zero bytes, then the key. */
function splitCredentials(seg: Buffer): Credentials {
  const trustEnd = derLength(seg);
  const trust = seg.subarray(0, trustEnd);
  const rest = seg.subarray(trustEnd);
  if (rest.subarray(0, 4).equals(Buffer.alloc(4))) return { trust, cert: Buffer.alloc(0), key: rest.subarray(4) };
  const certEnd = derLength(rest);
  return { trust, cert: rest.subarray(0, certEnd), key: rest.subarray(certEnd) };
}

/** The token of a key file holding an `Authorization` header line. */
function tokenOf(key: Buffer): string {
  const match = /^Authorization: Bearer (\S+)\r\n$/.exec(key.toString('utf8'));
  if (!match) throw new Error(`the key file is not an Authorization header line: ${key.length} bytes`);
  return match[1];
}

const pemOf = (der: Buffer) => new X509Certificate(der).toString();

describe.each(MODES)('CUPS update-info (%s)', (_mode, start) => {
  let stack: StackUnderTest;
  let api: Api;
  let certDir: string;
  let caPem: Buffer;
  let caDer: Buffer;
  let tlsPort: number;
  const lnsUri = () => `wss://localhost:${tlsPort}`;

  beforeAll(async () => {
    certDir = mkdtempSync(join(tmpdir(), 'cups-e2e-'));
    const certs = makeCertificates(certDir);
    caPem = readFileSync(certs.ca);
    caDer = new X509Certificate(caPem).raw;
    tlsPort = await freePort();
    stack = await start({
      GS_LBS_TLS_CERT_FILE: certs.serverCert,
      GS_LBS_TLS_KEY_FILE: certs.serverKey,
      GS_LBS_TLS_PORT: String(tlsPort),
      CUPS_LNS_URI: `wss://localhost:${tlsPort}`,
      CUPS_LNS_TRUST_FILE: certs.ca,
      CUPS_TRUST_FILE: certs.ca,
      KEKS: `is-kek=${'a5'.repeat(32)}`,
      IS_KEK_LABEL: 'is-kek',
      // Every line the stack writes, so that the log check below sees all of them.
      LOG_LEVEL: 'debug',
    });
    api = new Api(() => stack);
  }, 120_000);

  afterAll(async () => {
    await stack?.stop();
    if (certDir) rmSync(certDir, { recursive: true, force: true });
  });

  async function apiKey(gatewayId: string, rights: string[]): Promise<{ id: string; key: string }> {
    const res = await api.post(`/api/v3/gateways/${gatewayId}/api-keys`, { name: 'cups', rights });
    expectStatus(res, 200);
    return { id: res.json.id as string, key: res.json.key as string };
  }

  async function setSecret(gatewayId: string, field: 'lbs_lns_secret' | 'target_cups_key', key: string): Promise<void> {
    const gateway = { ids: { gateway_id: gatewayId }, [field]: { value: Buffer.from(key).toString('base64') } };
    expectStatus(await api.put(`/api/v3/gateways/${gatewayId}`, { gateway, field_mask: { paths: [field] } }), 200);
  }
  const setLnsSecret = (gatewayId: string, key: string) => setSecret(gatewayId, 'lbs_lns_secret', key);

  /** The station's `POST /update-info` with its `cups.key` token, as it sends it. */
  async function updateInfo(token: string | undefined, body: unknown): Promise<{ status: number; body: Buffer; json?: unknown }> {
    const res = await fetch(`${stack.baseUrl}/update-info`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(token ? { authorization: token } : {}) },
      body: typeof body === 'string' ? body : JSON.stringify(body),
    });
    const bytes = Buffer.from(await res.arrayBuffer());
    const json = res.headers.get('content-type')?.startsWith('application/json') ? (JSON.parse(bytes.toString()) as unknown) : undefined;
    return { status: res.status, body: bytes, json };
  }

  /** A data connection over wss:// with a token (discovery first): resolves to the region, or the refusal. */
  async function connectLns(eui: string, token: string): Promise<string> {
    const s = new SimulatedBasicStation(eui);
    try {
      return (await s.connect(`${lnsUri()}/traffic/eui-${eui}`, { ca: caPem, token })).region as string;
    } catch (err) {
      return (err as Error).message;
    } finally {
      s.close();
    }
  }

  it('rotates the LNS key: the station gets the new tcCred from CUPS, connects with it, and the old key is refused once revoked', async () => {
    const id = uid('cups');
    const eui = randomEui();
    expectStatus(
      await api.post(`/api/v3/users/${ADMIN_USER_ID}/gateways`, {
        gateway: { ids: { gateway_id: id, eui }, frequency_plan_id: 'EU_863_870', require_authenticated_connection: true },
      }),
      200,
    );
    const cupsKey = await apiKey(id, ['RIGHT_GATEWAY_INFO', 'RIGHT_GATEWAY_SETTINGS_BASIC', 'RIGHT_GATEWAY_READ_SECRETS']);
    const oldLns = await apiKey(id, ['RIGHT_GATEWAY_INFO', 'RIGHT_GATEWAY_LINK']);
    await setLnsSecret(id, oldLns.key);

    // A station without LNS credentials yet: CUPS gives it the LNS address and credentials.
    const station = {
      router: eui,
      cupsUri: `${stack.baseUrl}`,
      tcUri: '',
      cupsCredCrc: 0,
      tcCredCrc: 0,
      station: '2.0.6(corecell/std)',
      model: 'corecell',
      package: '',
      keys: [],
    };
    const first = await updateInfo(cupsKey.key, station);
    expect(first.status).toBe(200);
    const a1 = parseUpdateInfoAnswer(first.body);
    expect(a1).toMatchObject({ cupsUri: '', tcUri: lnsUri(), cupsCred: Buffer.alloc(0), sig: Buffer.alloc(0), upd: Buffer.alloc(0) });
    let creds = splitCredentials(a1.tcCred);
    expect(creds.trust.equals(caDer)).toBe(true);
    expect(creds.cert.length).toBe(0);
    expect(tokenOf(creds.key)).toBe(oldLns.key);
    expect(await connectLns(eui, tokenOf(creds.key))).toBe('EU868');
    // What the station said about itself is in the gateway's attributes (TTS's `cups-*`).
    const attributes = (await api.get(`/api/v3/gateways/${id}?field_mask=attributes`)).json.attributes as Record<string, string>;
    expect(attributes).toMatchObject({
      'cups-station': '2.0.6(corecell/std)',
      'cups-model': 'corecell',
      'cups-last-seen': expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/),
    });

    // Nothing changed: an empty answer (every length zero).
    const same = await updateInfo(`Bearer ${cupsKey.key}`, { ...station, tcUri: a1.tcUri, tcCredCrc: credentialsCrc(creds) });
    expect(same.status).toBe(200);
    expect(same.body.equals(Buffer.alloc(1 + 1 + 2 + 2 + 4 + 4))).toBe(true);

    // The operator rotates the key: a new one in lbs_lns_secret, the old one revoked.
    const newLns = await apiKey(id, ['RIGHT_GATEWAY_INFO', 'RIGHT_GATEWAY_LINK']);
    await setLnsSecret(id, newLns.key);
    const rotated = await updateInfo(cupsKey.key, { ...station, tcUri: a1.tcUri, tcCredCrc: credentialsCrc(creds) });
    expect(rotated.status).toBe(200);
    const a2 = parseUpdateInfoAnswer(rotated.body);
    expect(a2.tcUri).toBe('');
    expect(a2.cupsCred.length).toBe(0);
    creds = splitCredentials(a2.tcCred);
    expect(pemOf(creds.trust)).toBe(new X509Certificate(caPem).toString());
    expect(tokenOf(creds.key)).toBe(newLns.key);
    expectStatus(await api.delete(`/api/v3/gateways/${id}/api-keys/${oldLns.id}`), 200);
    expect(await connectLns(eui, tokenOf(creds.key))).toBe('EU868');
    expect(await connectLns(eui, oldLns.key)).toMatch(/answered 401/);
    // The station now holds the new credentials: nothing more to send.
    const settled = await updateInfo(cupsKey.key, { ...station, tcUri: a1.tcUri, tcCredCrc: credentialsCrc(creds) });
    expect(settled.body.equals(Buffer.alloc(14))).toBe(true);

    // Only a reader with RIGHT_GATEWAY_READ_SECRETS sees the secret; the admin's Get shows what was set.
    const full = await api.get(`/api/v3/gateways/${id}?field_mask=lbs_lns_secret`);
    expectStatus(full, 200);
    expect(Buffer.from(full.json.lbs_lns_secret.value as string, 'base64').toString()).toBe(newLns.key);
    const infoOnly = await apiKey(id, ['RIGHT_GATEWAY_INFO']);
    const asReader = { extraHeaders: { authorization: `Bearer ${infoOnly.key}` } };
    expectTtsError(await api.get(`/api/v3/gateways/${id}?field_mask=lbs_lns_secret`, asReader), 403, 7, 'pkg/auth/rights', 'insufficient_gateway_rights');
    expectStatus(await api.get(`/api/v3/gateways/${id}?field_mask=name,target_cups_uri`, asReader), 200);
    const userKey = await api.post(`/api/v3/users/${ADMIN_USER_ID}/api-keys`, { name: 'lister', rights: ['RIGHT_USER_GATEWAYS_LIST', 'RIGHT_GATEWAY_INFO'] });
    expectStatus(userKey, 200);
    const listed = await api.get(`/api/v3/users/${ADMIN_USER_ID}/gateways?field_mask=lbs_lns_secret,frequency_plan_id&limit=1000`, {
      extraHeaders: { authorization: `Bearer ${userKey.json.key as string}` },
    });
    expectStatus(listed, 200);
    const entry = (listed.json.gateways as Array<Record<string, unknown>>).find((g) => (g.ids as { gateway_id: string }).gateway_id === id);
    expect(entry).toMatchObject({ frequency_plan_id: 'EU_863_870' });
    expect(entry).not.toHaveProperty('lbs_lns_secret');
    const adminList = await api.get(`/api/v3/users/${ADMIN_USER_ID}/gateways?field_mask=lbs_lns_secret&limit=1000`);
    const adminEntry = (adminList.json.gateways as Array<Record<string, unknown>>).find((g) => (g.ids as { gateway_id: string }).gateway_id === id);
    expect(adminEntry).toHaveProperty('lbs_lns_secret');

    // CUPS with a key that may not read the secrets: refused by the IS.
    const refused = await updateInfo(infoOnly.key, station);
    expect(refused.status).toBe(403);

    // No secret in the logs.
    for (const key of [oldLns.key, newLns.key, cupsKey.key]) expect(stack.logs()).not.toContain(key.split('.')[2]);
  });

  it('rotates the CUPS key (target_cups_key) and moves the station to another CUPS server (target_cups_uri)', async () => {
    const id = uid('cups');
    const eui = randomEui();
    expectStatus(
      await api.post(`/api/v3/users/${ADMIN_USER_ID}/gateways`, { gateway: { ids: { gateway_id: id, eui }, frequency_plan_id: 'EU_863_870' } }),
      200,
    );
    const cupsRights = ['RIGHT_GATEWAY_INFO', 'RIGHT_GATEWAY_SETTINGS_BASIC', 'RIGHT_GATEWAY_READ_SECRETS'];
    const oldCups = await apiKey(id, cupsRights);
    const lns = await apiKey(id, ['RIGHT_GATEWAY_LINK']);
    await setLnsSecret(id, lns.key);
    const lnsCreds: Credentials = { trust: caDer, cert: Buffer.alloc(0), key: Buffer.from(`Authorization: Bearer ${lns.key}\r\n`) };
    const cupsCreds = (key: string): Credentials => ({ trust: caDer, cert: Buffer.alloc(0), key: Buffer.from(`Authorization: Bearer ${key}\r\n`) });
    const station = {
      router: eui,
      cupsUri: stack.baseUrl,
      tcUri: lnsUri(),
      cupsCredCrc: credentialsCrc(cupsCreds(oldCups.key)),
      tcCredCrc: credentialsCrc(lnsCreds),
    };
    expect((await updateInfo(oldCups.key, station)).body.equals(Buffer.alloc(14))).toBe(true);

    // A new CUPS key: the station gets it as cupsCred (this server's trust and the key), uses it, and the old one is revoked.
    const newCups = await apiKey(id, cupsRights);
    await setSecret(id, 'target_cups_key', newCups.key);
    const a = parseUpdateInfoAnswer((await updateInfo(oldCups.key, station)).body);
    expect(a).toMatchObject({ cupsUri: '', tcUri: '', tcCred: Buffer.alloc(0) });
    const got = splitCredentials(a.cupsCred);
    expect(got.trust.equals(caDer)).toBe(true);
    expect(tokenOf(got.key)).toBe(newCups.key);
    expectStatus(await api.delete(`/api/v3/gateways/${id}/api-keys/${oldCups.id}`), 200);
    const next = { ...station, cupsCredCrc: credentialsCrc(got) };
    expect((await updateInfo(tokenOf(got.key), next)).body.equals(Buffer.alloc(14))).toBe(true);
    expect((await updateInfo(oldCups.key, next)).status).toBe(401);

    // Moved to another CUPS server: its URI and the credentials for it.
    const gateway = { ids: { gateway_id: id }, target_cups_uri: 'https://cups2.example.com:443' };
    expectStatus(await api.put(`/api/v3/gateways/${id}`, { gateway, field_mask: { paths: ['target_cups_uri'] } }), 200);
    const moved = parseUpdateInfoAnswer((await updateInfo(newCups.key, { ...station, cupsCredCrc: 0 })).body);
    expect(moved.cupsUri).toBe('https://cups2.example.com:443');
    expect(tokenOf(splitCredentials(moved.cupsCred).key)).toBe(newCups.key);
  });

  it('answers errors in the API shape: bad JSON, no router, no or a wrong key, an unknown gateway, a gateway without LNS credentials', async () => {
    const id = uid('cups');
    const eui = randomEui();
    expectStatus(
      await api.post(`/api/v3/users/${ADMIN_USER_ID}/gateways`, { gateway: { ids: { gateway_id: id, eui }, frequency_plan_id: 'EU_863_870' } }),
      200,
    );
    const key = (await apiKey(id, ['RIGHT_GATEWAY_INFO', 'RIGHT_GATEWAY_READ_SECRETS'])).key;
    const station = { router: eui, cupsUri: stack.baseUrl, tcUri: '', cupsCredCrc: 0, tcCredCrc: 0 };
    const errorOf = (r: { status: number; json?: unknown }) => [
      r.status,
      (r.json as { details?: Array<{ namespace: string; name: string }> })?.details?.[0]?.name,
    ];

    expect(errorOf(await updateInfo(key, '{"router":'))).toEqual([409, 'parse']);
    expect(errorOf(await updateInfo(key, { cupsUri: '' }))).toEqual([409, 'parse']);
    expect((await updateInfo(undefined, station)).status).toBe(401);
    expect((await updateInfo(`${key.slice(0, -4)}AAAA`, station)).status).toBe(401);
    expect(errorOf(await updateInfo(key, { ...station, router: randomEui() }))).toEqual([404, 'gateway_not_found_by_eui']);
    // A router given as an integer is an EUI too (the specification's ID6 or number): here an unknown one.
    expect(errorOf(await updateInfo(key, { ...station, router: 5 }))).toEqual([404, 'gateway_not_found_by_eui']);
    // Odd bodies are refused as such, never a 5xx.
    for (const odd of ['', 'null', '[]', '"x"', '{"router":true}', `{"router":"${eui}","keys":"x"}`, `{"router":"${eui}","tcCredCrc":-1}`, '{"router":{}}']) {
      expect(errorOf(await updateInfo(key, odd))).toEqual([409, 'parse']);
    }
    const asText = await fetch(`${stack.baseUrl}/update-info`, { method: 'POST', headers: { authorization: key, 'content-type': 'text/plain' }, body: 'x' });
    expect(asText.status).toBe(409);
    expect(errorOf(await updateInfo(key, station))).toEqual([404, 'lns_credentials_not_found']);

    // Another gateway's key, with every right on its own gateway, learns nothing of this one's credentials.
    await setLnsSecret(id, 'NNSXS.THIS-GATEWAYS-LNS-SECRET');
    const other = uid('cups-other');
    expectStatus(
      await api.post(`/api/v3/users/${ADMIN_USER_ID}/gateways`, { gateway: { ids: { gateway_id: other, eui: randomEui() }, frequency_plan_id: 'EU_863_870' } }),
      200,
    );
    const otherKey = (await apiKey(other, ['RIGHT_GATEWAY_ALL'])).key;
    const foreign = await updateInfo(otherKey, station);
    expect(errorOf(foreign)).toEqual([403, 'no_gateway_rights']);
    expect(foreign.body.toString()).not.toContain('THIS-GATEWAYS-LNS-SECRET');
  });
});
