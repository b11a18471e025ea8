export * from './types';
export { getBand } from './bands';
export * from './catalogue';
export * from './data-rates';
export * from './rx-windows';
export * from './cf-list';
