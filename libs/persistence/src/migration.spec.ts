import { describe, expect, it } from 'vitest';
import type { QueryRunner } from 'typeorm';
import { sqlMigration } from './migration';

/** A query runner that only records what it was asked to run. */
const recorder = () => {
  const ran: string[] = [];
  const runner = { query: async (sql: string) => void ran.push(sql) } as unknown as QueryRunner;
  return { ran, runner };
};

describe('sqlMigration', () => {
  it('runs its up and its down statements in order, and records its name', async () => {
    const Migration = sqlMigration('ThingsInit1763800000000', {
      up: ['CREATE TABLE s.a (id int)', 'CREATE TABLE s.b (id int)'],
      down: ['DROP TABLE s.b, s.a'],
    });
    const migration = new Migration();
    expect(migration.name).toBe('ThingsInit1763800000000');
    const { ran, runner } = recorder();
    await migration.up(runner);
    await migration.down(runner);
    expect(ran).toEqual(['CREATE TABLE s.a (id int)', 'CREATE TABLE s.b (id int)', 'DROP TABLE s.b, s.a']);
  });

  it('refuses a name without the timestamp that orders it', () => {
    expect(() => sqlMigration('ThingsInit', { up: [], down: [] })).toThrow(/13-digit timestamp/);
  });
});
