export * from './phy-payload';
export * from './dev-addr';
