/**
 * The events each component emits, defined once per component (names, visibility and data as TTS,
 * wire contract §7.3), one file per component under `components/`. They live in the contract, not
 * in the components: the events service checks each event's visibility (the rights a subscriber
 * needs) and validates `names` filters against these definitions, and in a distributed deployment
 * it runs without the components' code. Imported in this order, the order of `eventDefinitions()`.
 */
export * from './components/is';
export * from './components/js';
export * from './components/gs';
export { NS_EVENTS } from './components/ns';
export * from './components/as';
export * from './components/events';
export * from './components/ns-mac';
