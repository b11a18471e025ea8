/**
 * LoRa Basics Station LNS protocol (`tcproto`), as pure functions: discovery, upstream messages,
 * router_config, uplink and downlink translation, times. Not yet served: the WebSocket frontend
 * that uses them is to come (docs/data-plane.md).
 */
export * from './discovery';
export * from './downlink';
export * from './eui';
export * from './json';
export * from './messages';
export * from './router-config';
export * from './time';
export * from './uplink';
export * from './planned';
