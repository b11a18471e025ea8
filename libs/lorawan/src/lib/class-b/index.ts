export * from './ping-slots';
