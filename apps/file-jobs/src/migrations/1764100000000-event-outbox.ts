import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Events a job's state change owes the EVENTS stream: written in the statement that changes the state, removed
 * once the event is published, republished by recovery when a process died in between.
 */
export class EventOutbox1764100000000 implements MigrationInterface {
  name = 'EventOutbox1764100000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE files.event_outbox (
        job_id uuid NOT NULL,
        event text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (job_id, event)
      )`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE files.event_outbox`);
  }
}
