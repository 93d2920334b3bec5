export * from './processes';
export * from './test-suite';
export * from './database';
export * from './compile-cache';
