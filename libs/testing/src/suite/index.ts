export * from './processes';
export * from './test-suite';
