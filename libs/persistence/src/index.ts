export * from './database';
export type { DataSource, EntityManager, MigrationInterface, QueryRunner } from 'typeorm';
