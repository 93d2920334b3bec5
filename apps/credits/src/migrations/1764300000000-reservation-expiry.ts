import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Reservations may carry an expiry: one whose holder died before settling is refunded whole by the sweep and
 * marked `expired`, so credits never stay held forever.
 */
export class ReservationExpiry1764300000000 implements MigrationInterface {
  name = 'ReservationExpiry1764300000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE credits.reservations ADD COLUMN expires_at timestamptz`);
    await q.query(`ALTER TABLE credits.reservations DROP CONSTRAINT reservations_status_check`);
    await q.query(
      `ALTER TABLE credits.reservations ADD CONSTRAINT reservations_status_check
         CHECK (status IN ('reserved', 'settled', 'expired'))`,
    );
    await q.query(
      `CREATE INDEX reservations_expiring_idx ON credits.reservations (expires_at)
        WHERE status = 'reserved' AND expires_at IS NOT NULL`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX credits.reservations_expiring_idx`);
    await q.query(`UPDATE credits.reservations SET status = 'settled' WHERE status = 'expired'`);
    await q.query(`ALTER TABLE credits.reservations DROP CONSTRAINT reservations_status_check`);
    await q.query(
      `ALTER TABLE credits.reservations ADD CONSTRAINT reservations_status_check
         CHECK (status IN ('reserved', 'settled'))`,
    );
    await q.query(`ALTER TABLE credits.reservations DROP COLUMN expires_at`);
  }
}
