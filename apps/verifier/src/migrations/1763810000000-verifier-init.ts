import type { MigrationInterface, QueryRunner } from 'typeorm';

/** The result cache: one row per normalised address and SMTP mode, with an expiry. */
export class VerifierInit1763810000000 implements MigrationInterface {
  name = 'VerifierInit1763810000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE verifier.results (
        email text NOT NULL,
        smtp_checked boolean NOT NULL,
        status text NOT NULL,
        result jsonb NOT NULL,
        verified_at timestamptz NOT NULL DEFAULT now(),
        expires_at timestamptz NOT NULL,
        PRIMARY KEY (email, smtp_checked)
      )`);
    await q.query(`CREATE INDEX results_expires_idx ON verifier.results (expires_at)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE verifier.results`);
  }
}
