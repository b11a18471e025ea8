export * from './lib/udp/packet';
export * from './lib/udp/packet-data';
export * from './lib/udp/translation';
export * from './lib/udp/udp-server';
export * from './lib/gs.module';
export * from './lib/errors';
export * from './lib/server/gateway-server.service';
export * from './lib/udp/txpk';
