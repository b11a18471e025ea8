export * from './lib/udp/packet';
export * from './lib/udp/packet-data';
export * from './lib/udp/translation';
