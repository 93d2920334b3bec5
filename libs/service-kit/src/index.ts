export * from './config';
export * from './health';
export * from './logger';
export * from './metrics';
export * from './nest';
export * from './handlers';
export * from './service-providers';
export * from './download-links';
