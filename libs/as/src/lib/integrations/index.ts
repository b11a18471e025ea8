export * from './application-integration';
