export * from './processes';
export * from './test-suite';
export * from './database';
