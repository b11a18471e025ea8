export * from './lib/log-context';
export * from './lib/logger';
export * from './lib/metrics';
export * from './lib/series-metrics';
export * from './lib/log-sampler';
