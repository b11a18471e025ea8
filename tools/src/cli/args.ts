import { parseArgs } from 'node:util';
import type { SimulateJoinOptions } from './commands/simulate';
import type { DeviceFormat } from './device-file';
import { UsageError } from './errors';
import type { DeviceRef } from './split';

/** A command line mistake: printed with the synopsis (exit code 2). */
export class CommandLineError extends UsageError {}

export interface GlobalFlags {
  url?: string;
  apiKey?: string;
}

export type Command =
  | { name: 'help' }
  | { name: 'register'; source: string }
  | { name: 'get'; ref: DeviceRef }
  | { name: 'delete'; ref: DeviceRef }
  | { name: 'list'; applicationId: string; limit?: number; page?: number }
  | {
      name: 'import';
      source: string;
      applicationId: string;
      format?: DeviceFormat;
      report?: string;
      dryRun: boolean;
      batchSize: number;
      concurrency: number;
    }
  | { name: 'export'; applicationId: string; withKeys: boolean; output?: string; pageSize: number }
  | { name: 'applications create'; applicationId: string; userId?: string; appName?: string }
  | { name: 'applications get' | 'applications delete'; applicationId: string }
  | { name: 'applications list'; limit?: number; page?: number }
  | { name: 'api-keys create'; applicationId: string; rights: string[]; keyName?: string; expiresAt?: string }
  | { name: 'simulate join'; options: SimulateJoinOptions };

const OPTIONS = {
  url: { type: 'string' },
  'api-key': { type: 'string' },
  limit: { type: 'string' },
  page: { type: 'string' },
  user: { type: 'string' },
  name: { type: 'string' },
  rights: { type: 'string' },
  'expires-at': { type: 'string' },
  udp: { type: 'string' },
  'gateway-eui': { type: 'string' },
  'join-eui': { type: 'string' },
  'dev-eui': { type: 'string' },
  'app-key': { type: 'string' },
  'nwk-key': { type: 'string' },
  'mac-version': { type: 'string' },
  'dev-nonce': { type: 'string' },
  frequency: { type: 'string' },
  'data-rate': { type: 'string' },
  timeout: { type: 'string' },
  application: { type: 'string' },
  format: { type: 'string' },
  report: { type: 'string' },
  'dry-run': { type: 'boolean' },
  'batch-size': { type: 'string' },
  concurrency: { type: 'string' },
  'with-keys': { type: 'boolean' },
  output: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

/** The options of `simulate join`; no other command takes them. */
const SIMULATE_OPTIONS = [
  'udp',
  'gateway-eui',
  'join-eui',
  'dev-eui',
  'app-key',
  'nwk-key',
  'mac-version',
  'dev-nonce',
  'frequency',
  'data-rate',
  'timeout',
] as const;

const IMPORT_OPTIONS = ['application', 'format', 'report', 'dry-run', 'batch-size', 'concurrency'];
const EXPORT_OPTIONS = ['application', 'with-keys', 'output', 'batch-size'];

/** The options that belong to one command or another (not the connection flags). */
const COMMAND_OPTIONS = ['limit', 'page', 'user', 'name', 'rights', 'expires-at', ...SIMULATE_OPTIONS, ...new Set([...IMPORT_OPTIONS, ...EXPORT_OPTIONS])];

/** Devices per batch request by default, and chunks in flight (`devices import`). */
export const DEFAULT_BATCH_SIZE = 250;
export const DEFAULT_CONCURRENCY = 4;
/** Devices per IS List page while exporting. */
export const DEFAULT_EXPORT_PAGE = 100;

export const SIMULATE_MAC_VERSIONS: ReadonlyArray<SimulateJoinOptions['macVersion']> = [
  'MAC_V1_0',
  'MAC_V1_0_1',
  'MAC_V1_0_2',
  'MAC_V1_0_3',
  'MAC_V1_0_4',
  'MAC_V1_1',
];

function count(name: string, raw: string | undefined): number | undefined {
  if (raw === undefined) return undefined;
  if (!/^\d+$/.test(raw)) throw new CommandLineError(`--${name} must be a non-negative integer, got "${raw}"`);
  return Number(raw);
}

/** A count within [1, max]. */
function bounded(name: string, raw: string | undefined, fallback: number, max: number): number {
  const value = count(name, raw) ?? fallback;
  if (value < 1 || value > max) throw new CommandLineError(`--${name} must be between 1 and ${max}, got ${value}`);
  return value;
}

function requiredApplication(command: string, values: Values): string {
  const applicationId = values.application;
  if (typeof applicationId !== 'string' || applicationId === '') throw new CommandLineError(`devices ${command} needs --application <application-id>`);
  return applicationId;
}

/** `devices import <file>` and `devices export`: many devices of one application at once. */
function parseBulkCommand(name: 'import' | 'export', args: string[], values: Values): Command {
  const str = (option: string) => values[option] as string | undefined;
  if (name === 'import') {
    refuseOptions(values, 'devices import', IMPORT_OPTIONS);
    const [source] = expectArgs(name, args, ['file.jsonl | file.csv']);
    const format = str('format');
    if (format !== undefined && format !== 'jsonl' && format !== 'csv') throw new CommandLineError(`--format must be jsonl or csv, got "${format}"`);
    return {
      name,
      source,
      applicationId: requiredApplication(name, values),
      format,
      report: str('report'),
      dryRun: values['dry-run'] === true,
      batchSize: bounded('batch-size', str('batch-size'), DEFAULT_BATCH_SIZE, 1000),
      concurrency: bounded('concurrency', str('concurrency'), DEFAULT_CONCURRENCY, 64),
    };
  }
  refuseOptions(values, 'devices export', EXPORT_OPTIONS);
  if (args.length > 0) throw new CommandLineError('devices export takes no arguments (the application is --application <application-id>)');
  return {
    name,
    applicationId: requiredApplication(name, values),
    withKeys: values['with-keys'] === true,
    output: str('output'),
    pageSize: bounded('batch-size', str('batch-size'), DEFAULT_EXPORT_PAGE, 1000),
  };
}

function expectArgs(command: string, args: string[], names: string[], group = 'devices'): string[] {
  if (args.length !== names.length) throw new CommandLineError(`${group} ${command} takes ${names.map((n) => `<${n}>`).join(' ')}`);
  return args;
}

type Values = Record<string, string | boolean | undefined>;

/** Options that belong to other commands than the one given. */
function refuseOptions(values: Values, command: string, allowed: readonly string[]): void {
  for (const option of COMMAND_OPTIONS) {
    if (values[option] !== undefined && !allowed.includes(option)) throw new CommandLineError(`--${option} does not apply to ${command}`);
  }
}

/** `applications create|get|list|delete` and `api-keys create`: what a new stack needs before devices. */
function parseAccessCommand(group: 'applications' | 'api-keys', name: string | undefined, args: string[], values: Values): Command {
  const str = (option: string) => values[option] as string | undefined;
  if (group === 'api-keys') {
    if (name !== 'create') throw new CommandLineError(name === undefined ? 'api-keys: which command? create' : `unknown command "api-keys ${name}"`);
    refuseOptions(values, 'api-keys create', ['name', 'rights', 'expires-at']);
    const [applicationId] = expectArgs(name, args, ['application-id'], group);
    const rights = (str('rights') ?? '')
      .split(',')
      .map((r) => r.trim())
      .filter((r) => r !== '');
    if (rights.length === 0) throw new CommandLineError('api-keys create needs --rights RIGHT_A,RIGHT_B');
    return { name: 'api-keys create', applicationId, rights, keyName: str('name'), expiresAt: str('expires-at') };
  }
  if (name === undefined) throw new CommandLineError('applications: which command? create, get, list or delete');
  switch (name) {
    case 'create': {
      refuseOptions(values, 'applications create', ['user', 'name']);
      const [applicationId] = expectArgs(name, args, ['application-id'], group);
      return { name: 'applications create', applicationId, userId: str('user'), appName: str('name') };
    }
    case 'get':
    case 'delete': {
      refuseOptions(values, `applications ${name}`, []);
      return { name: `applications ${name}`, applicationId: expectArgs(name, args, ['application-id'], group)[0] };
    }
    case 'list':
      refuseOptions(values, 'applications list', ['limit', 'page']);
      expectArgs(name, args, [], group);
      return { name: 'applications list', limit: count('limit', str('limit')), page: count('page', str('page')) };
    default:
      throw new CommandLineError(`unknown command "applications ${name}"`);
  }
}

function isMacVersion(value: string): value is SimulateJoinOptions['macVersion'] {
  return (SIMULATE_MAC_VERSIONS as readonly string[]).includes(value);
}

function hexOption(values: Values, option: string, digits: number): string | undefined {
  const raw = values[option] as string | undefined;
  if (raw !== undefined && !new RegExp(`^[0-9a-fA-F]{${digits}}$`).test(raw))
    throw new CommandLineError(`--${option} must be ${digits} hex digits, got "${raw}"`);
  return raw?.toUpperCase();
}

function requiredHexOption(values: Values, option: string, digits: number): string {
  const value = hexOption(values, option, digits);
  if (value === undefined) throw new CommandLineError(`simulate join needs --${option} (${digits} hex digits)`);
  return value;
}

function positiveNumber(option: string, raw: string): number {
  if (!/^\d+(\.\d+)?$/.test(raw) || Number(raw) <= 0) throw new CommandLineError(`--${option} must be a positive number, got "${raw}"`);
  return Number(raw);
}

/** `simulate join`: one OTAA join through the Gateway Server's UDP listener, as a gateway and a device. */
function parseSimulateCommand(name: string | undefined, args: string[], values: Values, flags: GlobalFlags): Command {
  if (name !== 'join') throw new CommandLineError(name === undefined ? 'simulate: which command? join' : `unknown command "simulate ${name}"`);
  if (args.length > 0) throw new CommandLineError('simulate join takes no arguments, only options');
  refuseOptions(values, 'simulate join', SIMULATE_OPTIONS);
  if (flags.url !== undefined || flags.apiKey !== undefined)
    throw new CommandLineError('--url and --api-key do not apply to simulate join (it speaks UDP: --udp)');
  const str = (option: string) => values[option] as string | undefined;

  const udp = str('udp') ?? '127.0.0.1:1700';
  const at = udp.lastIndexOf(':');
  const host = udp.slice(0, at);
  const port = Number(udp.slice(at + 1));
  if (at < 1 || !/^\d+$/.test(udp.slice(at + 1)) || port < 1 || port > 65535) throw new CommandLineError(`--udp must be host:port, got "${udp}"`);

  const macVersion = str('mac-version') ?? 'MAC_V1_0_3';
  if (!isMacVersion(macVersion)) {
    throw new CommandLineError(`--mac-version must be one of ${SIMULATE_MAC_VERSIONS.join(', ')}, got "${macVersion}"`);
  }
  const is11 = macVersion === 'MAC_V1_1';
  if (!is11 && values['nwk-key'] !== undefined) throw new CommandLineError(`--nwk-key applies to MAC_V1_1 only (${macVersion} joins with the AppKey)`);
  const devNonce = hexOption(values, 'dev-nonce', 4);

  const dataRate = str('data-rate') ?? 'SF7BW125';
  if (!/^SF([5-9]|1[0-2])BW(125|250|500)$/.test(dataRate))
    throw new CommandLineError(`--data-rate must be a LoRa data rate such as SF7BW125, got "${dataRate}"`);

  return {
    name: 'simulate join',
    options: {
      udp: { host, port },
      gatewayEui: requiredHexOption(values, 'gateway-eui', 16),
      joinEui: requiredHexOption(values, 'join-eui', 16),
      devEui: requiredHexOption(values, 'dev-eui', 16),
      appKey: requiredHexOption(values, 'app-key', 32),
      ...(is11 ? { nwkKey: requiredHexOption(values, 'nwk-key', 32) } : {}),
      macVersion,
      ...(devNonce !== undefined ? { devNonce: parseInt(devNonce, 16) } : {}),
      frequency: positiveNumber('frequency', str('frequency') ?? '868.1'),
      dataRate,
      timeoutMs: Math.round(positiveNumber('timeout', str('timeout') ?? '8') * 1000),
    },
  };
}

/** The command line → a command and the connection flags; throws CommandLineError. */
export function parseCommandLine(argv: string[]): { command: Command; flags: GlobalFlags } {
  let parsed;
  try {
    parsed = parseArgs({ args: argv, options: OPTIONS, allowPositionals: true, strict: true });
  } catch (err) {
    throw new CommandLineError((err as Error).message);
  }
  const { values, positionals } = parsed;
  const flags = { url: values.url, apiKey: values['api-key'] };
  if (values.help) return { command: { name: 'help' }, flags };

  const [group, name, ...args] = positionals;
  if (group === undefined) throw new CommandLineError('no command given');
  if (group === 'applications' || group === 'api-keys') return { command: parseAccessCommand(group, name, args, values), flags };
  if (group === 'simulate') return { command: parseSimulateCommand(name, args, values, flags), flags };
  // `end-devices` as ttn-lw-cli names the group.
  if (group !== 'devices' && group !== 'end-devices') throw new CommandLineError(`unknown command "${group}"`);
  if (name === undefined) throw new CommandLineError('devices: which command? register, get, list, delete, import or export');
  if (name === 'import' || name === 'export') return { command: parseBulkCommand(name, args, values), flags };
  if (name !== 'list' && (values.limit !== undefined || values.page !== undefined)) {
    throw new CommandLineError('--limit and --page apply to devices list only');
  }
  refuseOptions(values, `devices ${name}`, ['limit', 'page']);
  const ref = ([applicationId, deviceId]: string[]): DeviceRef => ({ applicationId, deviceId });
  switch (name) {
    case 'register':
      return { command: { name, source: expectArgs(name, args, ['file.json | -'])[0] }, flags };
    case 'get':
    case 'delete':
      return { command: { name, ref: ref(expectArgs(name, args, ['application-id', 'device-id'])) }, flags };
    case 'list': {
      const [applicationId] = expectArgs(name, args, ['application-id']);
      return { command: { name, applicationId, limit: count('limit', values.limit), page: count('page', values.page) }, flags };
    }
    default:
      throw new CommandLineError(`unknown command "devices ${name}"`);
  }
}
