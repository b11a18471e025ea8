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
  'headers',
  '*.headers',
];

/**
 * The process's root logger: one JSON object per line (`LOG_FORMAT=json`, the default) or
 * coloured text for people (`LOG_FORMAT=text`). Every line carries the fields of the work it was
 * written for (`withLogFields`: request ID, RPC, component), over the process's `defaults` (its
 * component: `stack` for the all-in-one process, whose lines name the component they serve).
 */
let processRoot: Logger | undefined;

/** Whether the process logs at `level` (to skip building a line nobody will see on a hot path). */
export function logsAt(level: Level): boolean {
  return processRoot?.isLevelEnabled(level) ?? true;
}

/** A logger on the process's root with fixed fields (e.g. `{ context: 'Access' }`), for hot paths that log structured lines directly through pino. */
export function childLogger(bindings: LogFields): Logger | undefined {
  return processRoot?.child(bindings);
}

export function createRootLogger(settings: LogSettings, defaults: LogFields = {}, destination?: DestinationStream): Logger {
  const options: pino.LoggerOptions = {
    level: LEVELS[settings.level] ?? 'info',
    messageKey: 'msg',
    timestamp: pino.stdTimeFunctions.isoTime,
    formatters: { level: (label) => ({ level: label }) },
    mixin: () => {
      const fields = currentLogFields();
      return fields ? { ...defaults, ...fields } : defaults;
    },
    redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
  };
  let root: Logger;
  if (destination) root = pino(options, destination);
  else if (settings.format === 'text') root = pino(options, pretty({ sync: true, colorize: process.stdout.isTTY, translateTime: 'SYS:HH:MM:ss.l', ignore: 'pid,hostname' }));
  else root = pino(options, pino.destination({ sync: false, minLength: 0 }));
  // The first is the process's (a process has one; nestjs-pino, too, keeps the first it is given).
  processRoot ??= root;
  return root;
}

/** Nest's LoggerService on a pino logger (nestjs-pino): Nest's and our `new Logger(context)` lines become pino lines with `context`. */
export function nestLogger(root: Logger): LoggerService {
  return new NestPinoLogger(new PinoLogger({ pinoHttp: { logger: root } }), {});
}
