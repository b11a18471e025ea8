export * from './types';
export { getBand } from './bands';
export * from './catalogue';
