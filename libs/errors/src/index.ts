export * from './lib/codes';
export * from './lib/error-details';
export * from './lib/stack-error';
export * from './lib/common-errors';
export * from './lib/auth-errors';
export * from './lib/raw-http';
