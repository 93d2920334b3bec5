export * from './bus';
export * from './namespace';
export * from './rpc-errors';
export * from './jetstream';
export * from './request-context';
export * from './transient';
