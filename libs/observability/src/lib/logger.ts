import { type LoggerService } from '@nestjs/common';
import { Logger as NestPinoLogger, PinoLogger } from 'nestjs-pino';
import pino, { type DestinationStream, type Level, type Logger } from 'pino';
import pretty from 'pino-pretty';
import { currentLogFields, type LogFields } from './log-context';

export type LogFormat = 'json' | 'text';

export interface LogSettings {
  /** error, warn, info (or Nest's `log`), debug, verbose. */
  level: string;
  format: LogFormat;
}

/** Nest's level names → pino's. */
const LEVELS: Record<string, Level> = { fatal: 'fatal', error: 'error', warn: 'warn', log: 'info', info: 'info', debug: 'debug', verbose: 'trace' };

/**
 * Paths pino replaces with `[redacted]` should a caller ever log an object holding them: request
 * headers and the names our messages give to secrets. Defence in depth only: request and reply
 * bodies are never logged.
 */
export const REDACTED_PATHS = [
  'authorization',
  'headers.authorization',
  'req.headers.authorization',
  '*.authorization',
  'api_key',
  '*.api_key',
  'downlink_api_key',
  '*.downlink_api_key',
  'key',
  '*.key',
  'secret',
  '*.secret',
  'headers',
  '*.headers',
];

let processRoot: Logger | undefined;

/** Whether the process logs at `level` (to skip building a line nobody will see on a hot path). */
export function logsAt(level: Level): boolean {
  return processRoot?.isLevelEnabled(level) ?? true;
}

/** A logger on the process's root with fixed fields (e.g. `{ context: 'Access' }`), for hot paths that log structured lines directly through pino. */
export function childLogger(bindings: LogFields): Logger | undefined {
  return processRoot?.child(bindings);
}

/**
 * The process's root logger: one JSON object per line (`LOG_FORMAT=json`, the default) or
 * coloured text for people (`LOG_FORMAT=text`). Every line carries the fields of the work it was
 * written for (`withLogFields`: request ID, RPC, component), over the process's `defaults` (its
 * component: `stack` for the all-in-one process, whose lines name the component they serve).
 */
export function createRootLogger(settings: LogSettings, defaults: LogFields = {}, destination?: DestinationStream): Logger {
  const options: pino.LoggerOptions = {
    level: LEVELS[settings.level] ?? 'info',
    messageKey: 'msg',
    timestamp: pino.stdTimeFunctions.isoTime,
    formatters: { level: (label) => ({ level: label }) },
    // A new object every time: pino merges the line's own fields into what the mixin returns.
    mixin: () => ({ ...defaults, ...currentLogFields() }),
    redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
    serializers: { err: errorFields },
  };
  let root: Logger;
  if (destination) root = pino(options, destination);
  else if (settings.format === 'text')
    root = pino(options, pretty({ sync: true, colorize: process.stdout.isTTY, translateTime: 'SYS:HH:MM:ss.l', ignore: 'pid,hostname', singleLine: true }));
  else root = pino(options, pino.destination({ sync: false, minLength: 0 }));
  // The first is the process's (a process has one; nestjs-pino, too, keeps the first it is given).
  processRoot ??= root;
  return root;
}

/**
 * What a logged error shows: its class, message, code and stack, and those of its cause, never
 * its other fields (a TypeORM QueryFailedError carries the statement's parameters, which may be
 * keys; a driver error its connection settings).
 */
export function errorFields(err: unknown, depth = 0): Record<string, unknown> | unknown {
  if (typeof err !== 'object' || err === null) return err;
  const e = err as { name?: unknown; message?: unknown; stack?: unknown; code?: unknown; errno?: unknown; driverError?: unknown; cause?: unknown };
  const out: Record<string, unknown> = { type: e.constructor?.name ?? e.name, message: e.message };
  if (e.code !== undefined) out.code = e.code;
  if (e.errno !== undefined) out.errno = e.errno;
  if (e.stack !== undefined) out.stack = e.stack;
  const inner = e.driverError ?? e.cause;
  if (inner !== undefined && depth < 3) out.cause = errorFields(inner, depth + 1);
  return out;
}

/** Nest's LoggerService on a pino logger (nestjs-pino): Nest's and our `new Logger(context)` lines become pino lines with `context`. */
export function nestLogger(root: Logger): LoggerService {
  return new NestPinoLogger(new PinoLogger({ pinoHttp: { logger: root } }), {});
}
