import { ConfigError, loadConfig } from './stack-config';

describe('payload formatter settings (FORMATTER_*)', () => {
  it('has the documented defaults', () => {
    expect(loadConfig({}).formatters).toEqual({
      workers: 2,
      timeoutMs: 100,
      memoryLimitBytes: 32 * 1024 * 1024,
      maxOutputBytes: 65_536,
      maxOutputDepth: 32,
      applicationConcurrency: 1,
      applicationQueue: 32,
      queue: 256,
      applicationRunawaysPerMinute: 5,
      nice: 10,
    });
  });

  it('reads every setting', () => {
    const config = loadConfig({
      FORMATTER_WORKERS: '4',
      FORMATTER_TIMEOUT_MS: '250',
      FORMATTER_MEMORY_LIMIT_MB: '64',
      FORMATTER_MAX_OUTPUT_BYTES: '4096',
      FORMATTER_MAX_OUTPUT_DEPTH: '8',
      FORMATTER_APP_CONCURRENCY: '2',
      FORMATTER_APP_QUEUE: '0',
      FORMATTER_QUEUE: '10',
      FORMATTER_APP_RUNAWAYS_PER_MIN: '0',
      FORMATTER_NICE: '0',
    });
    expect(config.formatters).toEqual({
      workers: 4,
      timeoutMs: 250,
      memoryLimitBytes: 64 * 1024 * 1024,
      maxOutputBytes: 4096,
      maxOutputDepth: 8,
      applicationConcurrency: 2,
      applicationQueue: 0,
      queue: 10,
      applicationRunawaysPerMinute: 0,
      nice: 0,
    });
  });

  it.each([
    ['FORMATTER_WORKERS', '0'],
    ['FORMATTER_TIMEOUT_MS', 'fast'],
    ['FORMATTER_MEMORY_LIMIT_MB', '16'],
    ['FORMATTER_MAX_OUTPUT_DEPTH', '1000'],
    ['FORMATTER_NICE', '20'],
  ])('refuses %s=%s at start', (name, value) => {
    expect(() => loadConfig({ [name]: value })).toThrow(ConfigError);
    expect(() => loadConfig({ [name]: value })).toThrow(new RegExp(name));
  });
});
