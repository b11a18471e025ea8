export * from './types';
export { ERP_TO_EIRP, getBand } from './bands';
export * from './catalogue';
export * from './data-rates';
export * from './rx-windows';
export * from './cf-list';
export * from './link-adr-masks';
