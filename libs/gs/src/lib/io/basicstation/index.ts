/**
 * LoRa Basics Station LNS protocol (`tcproto`), as pure functions: discovery, upstream messages,
 * router_config, uplink and downlink translation, times. The WebSocket frontend that serves them
 * (`lns-server.ts`) is the GS's, listed in `io/frontends.ts` (docs/data-plane.md).
 */
export * from './discovery';
export * from './downlink';
export * from './json';
export * from './messages';
export * from './router-config';
export * from './time';
export * from './uplink';
export * from './planned';
