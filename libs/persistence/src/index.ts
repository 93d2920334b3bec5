export * from './database';
export * from './migration';
export type { DataSource, MigrationInterface, QueryRunner } from 'typeorm';
export * from './sql';
