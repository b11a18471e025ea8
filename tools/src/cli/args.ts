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
  | { name: 'list'; applicationId: string; limit?: number; page?: number };

const OPTIONS = {
  url: { type: 'string' },
  'api-key': { type: 'string' },
  limit: { type: 'string' },
  page: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

function count(name: string, raw: string | undefined): number | undefined {
  if (raw === undefined) return undefined;
  if (!/^\d+$/.test(raw)) throw new CommandLineError(`--${name} must be a non-negative integer, got "${raw}"`);
  return Number(raw);
}

function expectArgs(command: string, args: string[], names: string[]): string[] {
  if (args.length !== names.length) throw new CommandLineError(`devices ${command} takes ${names.map((n) => `<${n}>`).join(' ')}`);
  return args;
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
  // `end-devices` as ttn-lw-cli names the group.
  if (group !== 'devices' && group !== 'end-devices') throw new CommandLineError(`unknown command "${group}"`);
  if (name === undefined) throw new CommandLineError('devices: which command? register, get, list or delete');
  if (name !== 'list' && (values.limit !== undefined || values.page !== undefined)) {
    throw new CommandLineError('--limit and --page apply to devices list only');
  }
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
