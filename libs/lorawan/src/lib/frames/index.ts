export * from './phy-payload';
