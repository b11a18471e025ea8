export * from './ns-device';
export * from './struct';
