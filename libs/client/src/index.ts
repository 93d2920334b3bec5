export * from './client';
export * from './helpers';
export type { paths, components, operations } from './generated/openapi';
export type {
  paths as legacyPaths,
  components as legacyComponents,
  operations as legacyOperations,
} from './generated/openapi-legacy';
