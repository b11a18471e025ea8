import { ConsoleLogger, type LogLevel } from '@nestjs/common';
import type { StackConfig } from '@lorawan/config';

const LEVELS: LogLevel[] = ['fatal', 'error', 'warn', 'log', 'debug', 'verbose'];

export function createLogger(config: StackConfig, context: string): ConsoleLogger {
  const wanted = config.logLevel === 'info' ? 'log' : (config.logLevel as LogLevel);
  const logLevels = LEVELS.slice(0, LEVELS.indexOf(wanted) + 1);
  return new ConsoleLogger(context, { logLevels, json: config.logFormat === 'json', colors: config.logFormat !== 'json' && process.stdout.isTTY });
}
