export * from './cayenne-lpp';
export * from './formatter.errors';
export * from './javascript-sandbox';
export * from './payload-formatter.service';
