import { sqlMigration } from '@emailverify/persistence';

/**
 * The result cache: one row per normalised address and SMTP mode, with an expiry. It is written once for every
 * address verified (a million rows for a million-address file), and everything in it can be verified again, so
 * it is made cheap to write:
 * - UNLOGGED: no write-ahead log. After a crash of PostgreSQL (not a clean restart) the table comes back
 *   empty, and standbys do not have it; either only means verifying again. Nothing is billed from it twice: a
 *   file job's chunks are charged once by file-jobs whatever the verifier finds here.
 * - `result` as text (packResult's JSON, libs/contracts) rather than jsonb: it is only ever read back whole,
 *   never queried into, and building (or even validating) JSON values costs PostgreSQL more than storing the
 *   row.
 * - the address compared byte by byte (COLLATE "C"): it is a key, never sorted for people, and the database's
 *   default collation would make every comparison in the primary key a locale-aware one.
 * - expiry indexed with BRIN instead of a B-tree: rows arrive in expiry order, so block ranges summarise it
 *   well enough for the periodic purge, at almost no cost per insert.
 *
 * Being a cache, it holds one form of `result` only: a migration that changes the form empties the table
 * (`TRUNCATE verifier.results`) instead of the verifier carrying a reader for the old form.
 */
export const VerifierInit1763810000000 = sqlMigration('VerifierInit1763810000000', {
  up: [
    `
      CREATE UNLOGGED TABLE verifier.results (
        email text COLLATE "C" NOT NULL,
        smtp_checked boolean NOT NULL,
        status text NOT NULL,
        result text NOT NULL,
        verified_at timestamptz NOT NULL DEFAULT now(),
        expires_at timestamptz NOT NULL,
        PRIMARY KEY (email, smtp_checked)
      )`,
    `CREATE INDEX results_expires_brin ON verifier.results USING brin (expires_at)`,
    // Domain reports, cached like address results: one row per ASCII domain and SMTP mode, the report as JSON.
    `
      CREATE UNLOGGED TABLE verifier.domain_reports (
        domain text COLLATE "C" NOT NULL,
        smtp_checked boolean NOT NULL,
        report text NOT NULL,
        verified_at timestamptz NOT NULL DEFAULT now(),
        expires_at timestamptz NOT NULL,
        PRIMARY KEY (domain, smtp_checked)
      )`,
  ],
  down: [`DROP TABLE verifier.domain_reports`, `DROP TABLE verifier.results`],
});
