export * from './phy-payload';
export * from './dev-addr';
export * from './f-cnt';
