export * from './bus';
export * from './namespace';
export * from './rpc-errors';
