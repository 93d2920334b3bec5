import { sqlMigration } from '@emailverify/persistence';

/**
 * A job records the mode of the key that uploaded it: a sandbox job reserves no credits, its chunks are answered
 * from the sandbox table, and its events say so.
 */
export const JobMode1764300000000 = sqlMigration('JobMode1764300000000', {
  up: [
    `ALTER TABLE files.jobs ADD COLUMN mode text NOT NULL DEFAULT 'live' CHECK (mode IN ('live', 'sandbox'))`,
  ],
  down: [`ALTER TABLE files.jobs DROP COLUMN mode`],
});
