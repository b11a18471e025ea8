import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type DeviceLine, formatOf, inspectDeviceFile, parseJsonLine, readDeviceFile } from './device-file';

describe('formatOf', () => {
  it('CSV by extension, JSON lines otherwise; --format wins', () => {
    expect(formatOf('devices.CSV')).toBe('csv');
    expect(formatOf('devices.jsonl')).toBe('jsonl');
    expect(formatOf('devices.txt')).toBe('jsonl');
    expect(formatOf('devices.csv', 'jsonl')).toBe('jsonl');
  });
});

describe('parseJsonLine', () => {
  it('puts the device in the given application, bare or as {"end_device": …}', () => {
    const bare = parseJsonLine('{"ids":{"device_id":"dev1","application_ids":{"application_id":"old"}},"name":"x"}', 'new-app');
    expect(bare.ref).toEqual({ applicationId: 'new-app', deviceId: 'dev1' });
    expect(bare.device).toEqual({ ids: { device_id: 'dev1', application_ids: { application_id: 'new-app' } }, name: 'x' });
    expect(parseJsonLine('{"end_device":{"ids":{"device_id":"dev2"}}}', 'app').ref).toEqual({ applicationId: 'app', deviceId: 'dev2' });
  });

  it('says what is wrong with a bad line', () => {
    expect(() => parseJsonLine('{"ids":', 'app')).toThrow('not valid JSON');
    expect(() => parseJsonLine('[1]', 'app')).toThrow('JSON object');
    expect(() => parseJsonLine('{"name":"x"}', 'app')).toThrow('no "ids" object');
    expect(() => parseJsonLine('{"ids":{}}', 'app')).toThrow('ids.device_id');
  });
});

describe('reading a file', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'lw-device-file-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  async function all(path: string, format: 'jsonl' | 'csv'): Promise<DeviceLine[]> {
    const out: DeviceLine[] = [];
    for await (const line of readDeviceFile(path, format, 'app1')) out.push(line);
    return out;
  }

  it('JSON lines: numbered lines, blank ones skipped, bad ones with their reason and device ID', async () => {
    const path = join(dir, 'a.jsonl');
    writeFileSync(path, '{"ids":{"device_id":"dev1"}}\n\n{"ids":{"device_id":"dev2", \r\n{"ids":{"device_id":"dev3"}}');
    const lines = await all(path, 'jsonl');
    expect(lines.map((l) => ('error' in l ? [l.line, 'error', l.deviceId] : [l.line, l.ref.deviceId]))).toEqual([
      [1, 'dev1'],
      [3, 'error', 'dev2'],
      [4, 'dev3'],
    ]);
    expect(await inspectDeviceFile(path, 'jsonl')).toEqual({ total: 3 });
  });

  it('CSV: the header is line 1 and not a device', async () => {
    const path = join(dir, 'a.csv');
    writeFileSync(path, 'device_id,name\r\ndev1,One\r\ndev2\r\n');
    const lines = await all(path, 'csv');
    expect(lines[0]).toEqual({
      line: 2,
      device: { ids: { device_id: 'dev1', application_ids: { application_id: 'app1' } }, name: 'One' },
      ref: { applicationId: 'app1', deviceId: 'dev1' },
    });
    expect(lines[1]).toEqual({ line: 3, error: '1 fields where the header has 2 columns', deviceId: undefined });
    expect(await inspectDeviceFile(path, 'csv')).toEqual({ total: 2 });
  });

  it('refuses a CSV with an unknown column before reading on', async () => {
    const path = join(dir, 'b.csv');
    writeFileSync(path, 'device_id,colour\ndev1,red\n');
    await expect(inspectDeviceFile(path, 'csv')).rejects.toThrow(`${path}:1: unknown column "colour"`);
  });

  it('a missing file is a CLI error', async () => {
    await expect(inspectDeviceFile(join(dir, 'nope.jsonl'), 'jsonl')).rejects.toThrow('no such file');
  });
});
