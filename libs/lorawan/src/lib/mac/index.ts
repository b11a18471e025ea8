export * from './mac-commands';
