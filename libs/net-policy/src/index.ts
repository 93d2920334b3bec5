export * from './address-class';
