export * from './lib/udp/packet';
export * from './lib/udp/packet-data';
export * from './lib/udp/translation';
export * from './lib/udp/udp-server';
