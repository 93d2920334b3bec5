export * from './errors';
export * from './file-jobs';
export * from './files';
export * from './ids';
export * from './styles';
export * from './subjects';
export * from './verification';
export * from './webhooks';
