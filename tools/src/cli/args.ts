import { parseArgs } from 'node:util';
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
  | { name: 'applications create'; applicationId: string; userId?: string; appName?: string }
  | { name: 'applications get' | 'applications delete'; applicationId: string }
  | { name: 'applications list'; limit?: number; page?: number }
  | { name: 'api-keys create'; applicationId: string; rights: string[]; keyName?: string; expiresAt?: string };

const OPTIONS = {
  url: { type: 'string' },
  'api-key': { type: 'string' },
  limit: { type: 'string' },
  page: { type: 'string' },
  user: { type: 'string' },
  name: { type: 'string' },
  rights: { type: 'string' },
  'expires-at': { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

function count(name: string, raw: string | undefined): number | undefined {
  if (raw === undefined) return undefined;
  if (!/^\d+$/.test(raw)) throw new CommandLineError(`--${name} must be a non-negative integer, got "${raw}"`);
  return Number(raw);
}

function expectArgs(command: string, args: string[], names: string[], group = 'devices'): string[] {
  if (args.length !== names.length) throw new CommandLineError(`${group} ${command} takes ${names.map((n) => `<${n}>`).join(' ')}`);
  return args;
}

type Values = Record<string, string | boolean | undefined>;

/** Options that belong to other commands than the one given. */
function refuseOptions(values: Values, command: string, allowed: readonly string[]): void {
  for (const option of ['limit', 'page', 'user', 'name', 'rights', 'expires-at']) {
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
  // `end-devices` as ttn-lw-cli names the group.
  if (group !== 'devices' && group !== 'end-devices') throw new CommandLineError(`unknown command "${group}"`);
  if (name === undefined) throw new CommandLineError('devices: which command? register, get, list or delete');
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
