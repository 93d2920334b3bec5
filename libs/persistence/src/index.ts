export * from './database';
export * from './migration';
export type { DataSource, EntityManager, MigrationInterface, QueryRunner } from 'typeorm';
export * from './sql';
