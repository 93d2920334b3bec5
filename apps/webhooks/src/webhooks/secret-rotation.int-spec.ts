import { randomBytes, randomUUID } from 'node:crypto';
import type { AccountId } from '@emailverify/contracts';
import {
  type DataSource,
  type Queryable,
  Sql,
  type Statement,
  type TransactionOptions,
} from '@emailverify/persistence';
import { eventually, openTestDatabase } from '@emailverify/testing';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DeliveriesRepository } from '../delivery/deliveries.repository';
import { webhooksMigrations } from '../migrations';
import { newSigningSecret, SecretBox } from './secret-box';
import { rekeyAll } from './secret-rekey';
import { type WebhookRow, WebhooksRepository } from './webhooks.repository';

const newAccountId = () => randomUUID() as AccountId;
const quiet = pino({ level: 'silent' });

/** The key ring before the key change (`k1` seals) and after it (`k2` seals, `k1` still opens). */
const k1 = { id: 'k1', key: randomBytes(32) };
const k2 = { id: 'k2', key: randomBytes(32) };
const oldRing = new SecretBox([k1]);
const newRing = new SecretBox([k2, k1]);

/**
 * A gate in a transaction: `Sql` whose transactions stop before their first statement that `matches`, until
 * `open()`. `reached` resolves when one has stopped there (its earlier statements ran, its locks are held).
 */
class GatedSql extends Sql {
  private release!: () => void;
  private readonly gate = new Promise<void>((resolve) => (this.release = resolve));
  private arrive!: () => void;
  readonly reached = new Promise<void>((resolve) => (this.arrive = resolve));

  constructor(
    db: DataSource,
    private readonly matches: RegExp,
  ) {
    super(db);
  }

  open(): void {
    this.release();
  }

  override transaction<T>(work: (tx: Queryable) => Promise<T>, options?: TransactionOptions): Promise<T> {
    return super.transaction((tx) => {
      const stop = async (statement: Statement) => {
        if (!this.matches.test(typeof statement === 'string' ? statement : statement.text)) return;
        this.arrive();
        await this.gate;
      };
      return work({
        rows: async (statement, values) => {
          await stop(statement);
          return tx.rows(statement, values);
        },
        one: async (statement, values) => {
          await stop(statement);
          return tx.one(statement, values);
        },
        affected: async (statement, values) => {
          await stop(statement);
          return tx.affected(statement, values);
        },
      });
    }, options);
  }
}

describe('secret rotation and re-encryption in PostgreSQL', () => {
  let db: DataSource;
  let drop: () => Promise<void>;
  let sql: Sql;
  let webhooks: WebhooksRepository;
  let deliveries: DeliveriesRepository;

  beforeAll(async () => {
    ({ db, drop } = await openTestDatabase('webhooks', webhooksMigrations));
    sql = new Sql(db);
    webhooks = new WebhooksRepository(sql);
    deliveries = new DeliveriesRepository(sql);
  });
  afterAll(async () => drop?.());

  /** A webhook whose secret `box` sealed; returns the row and the secret. */
  async function makeWebhook(accountId: AccountId, box: SecretBox) {
    const id = randomUUID();
    const secret = newSigningSecret();
    const row = await webhooks.create(
      accountId,
      {
        id,
        url: 'https://hooks.example.com/in',
        events: ['file.completed'],
        secretSealed: box.seal(secret, id),
        secretKeyId: box.keyId,
      },
      25,
    );
    return { row: row!, secret };
  }

  /** Rotates as the service does: a new secret sealed with `box`'s key, the current one kept as the previous. */
  async function rotate(
    repo: WebhooksRepository,
    box: SecretBox,
    row: { account_id: AccountId; id: string },
    overlapHours = 1,
  ) {
    const secret = newSigningSecret();
    const rotated = await repo.rotateSecret(row.account_id, row.id, overlapHours, (current) => ({
      keyId: box.keyId,
      secretSealed: box.seal(secret, current.id),
      previousSealed: box.seal(
        box.open(current.secret_sealed, current.id, current.secret_key_id),
        current.id,
      ),
    }));
    return { row: rotated!, secret };
  }

  /** The stored row's secrets, opened with the key ring after the key change (which opens both keys). */
  async function opened(id: string) {
    const row = await sql.one<WebhookRow>(
      `SELECT id, secret_key_id, secret_sealed, previous_secret_sealed FROM webhooks.webhooks WHERE id = $1`,
      [id],
    );
    return {
      keyId: row!.secret_key_id,
      secret: newRing.open(row!.secret_sealed, id, row!.secret_key_id),
      previous:
        row!.previous_secret_sealed && newRing.open(row!.previous_secret_sealed, id, row!.secret_key_id),
    };
  }

  /** A fresh delivery of the webhook's account, claimed: what the dispatcher signs the next attempt with. */
  async function claimNext(row: { account_id: AccountId; id: string }) {
    const jobId = randomUUID();
    await deliveries.createForEvents(
      [
        {
          accountId: row.account_id,
          eventId: `${jobId}:file.completed`,
          event: 'file.completed',
          jobId,
          body: '{}',
          requestId: null,
        },
      ],
      0,
    );
    // Claims of earlier calls are still held: a per-webhook cap above them.
    const claimed = (await deliveries.claimDue(100, 60_000, 100)).filter((d) => d.webhook_id === row.id);
    expect(claimed).toHaveLength(1);
    const [d] = claimed;
    return {
      secret: newRing.open(d!.secret_sealed, d!.webhook_id, d!.secret_key_id),
      previous:
        d!.previous_secret_sealed && newRing.open(d!.previous_secret_sealed, d!.webhook_id, d!.secret_key_id),
    };
  }

  it('keeps the rotated-out secret signing for the overlap, drops it after, and keeps only the last one', async () => {
    const { row, secret: first } = await makeWebhook(newAccountId(), oldRing);
    const { row: rotated, secret: second } = await rotate(webhooks, oldRing, row, 2);
    expect(rotated.previous_secret_until!.getTime() - rotated.secret_rotated_at!.getTime()).toBe(
      2 * 3_600_000,
    );
    expect(await opened(row.id)).toEqual({ keyId: 'k1', secret: second, previous: first });
    // During the overlap an attempt is signed with both.
    expect(await claimNext(row)).toEqual({ secret: second, previous: first });

    // The overlap over (the rotation moved two hours into the past): the new secret alone signs.
    await sql.affected(
      `UPDATE webhooks.webhooks SET previous_secret_until = previous_secret_until - interval '2 hours',
              secret_rotated_at = secret_rotated_at - interval '2 hours' WHERE id = $1`,
      [row.id],
    );
    expect(await claimNext(row)).toEqual({ secret: second, previous: null });

    // Rotated again: the secret it replaces signs for the overlap; the first one signs no more.
    const { secret: third } = await rotate(webhooks, oldRing, row, 2);
    expect(await claimNext(row)).toEqual({ secret: third, previous: second });
    // With no overlap, the replaced secret stops signing at once.
    const { secret: fourth } = await rotate(webhooks, oldRing, row, 0);
    expect(await claimNext(row)).toEqual({ secret: fourth, previous: null });
  });

  it('re-encrypts every row under the new first key, each row opening at every step', async () => {
    // 250 webhooks (10 accounts of 25) sealed with k1, every fifth rotated so it has a previous secret too.
    const made: { id: string; secret: string; previous: string | null }[] = [];
    for (let a = 0; a < 10; a++) {
      const account = newAccountId();
      for (let i = 0; i < 25; i++) {
        const { row, secret } = await makeWebhook(account, oldRing);
        if (i % 5 === 0) {
          const r = await rotate(webhooks, oldRing, row);
          made.push({ id: row.id, secret: r.secret, previous: secret });
        } else made.push({ id: row.id, secret, previous: null });
      }
    }
    const before = new Map(
      (
        await sql.rows<{ id: string; secret_sealed: Buffer }>(
          `SELECT id, secret_sealed FROM webhooks.webhooks`,
        )
      ).map((r) => [r.id, r.secret_sealed]),
    );
    const everyRowOpens = async () => {
      for (const m of made) {
        const { secret, previous } = await opened(m.id);
        expect({ secret, previous }).toEqual({ secret: m.secret, previous: m.previous });
      }
    };
    const keyCounts = async () =>
      Object.fromEntries((await webhooks.keyIdsInUse()).map((k) => [k.secret_key_id, k.count]));

    // One batch as the background task runs it: part of the rows move, all of them open with the ring.
    const reseal = (row: {
      id: string;
      secret_key_id: string;
      secret_sealed: Buffer;
      previous_secret_sealed: Buffer | null;
    }) => ({
      secret_key_id: newRing.keyId,
      secret_sealed: newRing.seal(newRing.open(row.secret_sealed, row.id, row.secret_key_id), row.id),
      previous_secret_sealed: row.previous_secret_sealed
        ? newRing.seal(newRing.open(row.previous_secret_sealed, row.id, row.secret_key_id), row.id)
        : null,
    });
    const total = (await keyCounts()).k1!;
    expect(await webhooks.resealBatch(['k1'], 100, reseal)).toBe(100);
    expect(await keyCounts()).toEqual({ k1: total - 100, k2: 100 });
    await everyRowOpens();

    // The task to the end: every row under k2, rewritten (k1 alone no longer opens any), each opening as before.
    expect(await rekeyAll(webhooks, newRing, quiet)).toBe(total - 100);
    expect(await keyCounts()).toEqual({ k2: total });
    await everyRowOpens();
    for (const m of made) {
      const row = await sql.one<{ secret_sealed: Buffer }>(
        `SELECT secret_sealed FROM webhooks.webhooks WHERE id = $1`,
        [m.id],
      );
      expect(row!.secret_sealed.equals(before.get(m.id)!)).toBe(false);
      expect(() => oldRing.open(row!.secret_sealed, m.id, 'k1')).toThrow();
    }
    // Nothing left: a later run rewrites nothing.
    expect(await rekeyAll(webhooks, newRing, quiet)).toBe(0);
  });

  it('a rotation waiting for a row the re-encryption holds is applied on the re-encrypted row', async () => {
    const { row, secret: original } = await makeWebhook(newAccountId(), oldRing);
    // The re-encryption has read and locked its rows and is about to write them back.
    const rekeySql = new GatedSql(db, /^\s*UPDATE webhooks\.webhooks/);
    const rekeying = rekeyAll(new WebhooksRepository(rekeySql), newRing, quiet);
    await rekeySql.reached;
    const rotating = rotate(webhooks, newRing, row);
    // The rotation waits for the row's lock.
    await eventually(async () => {
      const [waiting] = await sql.rows<{ n: number }>(
        `SELECT count(*)::int AS n FROM pg_stat_activity
          WHERE datname = current_database() AND wait_event_type = 'Lock'`,
      );
      return waiting!.n === 1;
    });
    rekeySql.open();
    await rekeying;
    const { secret: rotatedTo } = await rotating;
    // Both took effect: the rotation's secret, the original as its previous, all under the new key.
    expect(await opened(row.id)).toEqual({ keyId: 'k2', secret: rotatedTo, previous: original });
  });

  it('a rotation holding its row is skipped by the re-encryption and re-encrypted by its next run', async () => {
    const { row, secret: original } = await makeWebhook(newAccountId(), oldRing);
    // A replica still on the old ring rotates; it has locked the row and is about to write the new secret.
    const rotateSql = new GatedSql(db, /^\s*UPDATE webhooks\.webhooks/);
    const rotating = rotate(new WebhooksRepository(rotateSql), oldRing, row);
    await rotateSql.reached;
    // Meanwhile the re-encryption passes over the locked row rather than wait for it or overwrite it.
    await rekeyAll(webhooks, newRing, quiet);
    expect((await opened(row.id)).keyId).toBe('k1');
    rotateSql.open();
    const { secret: rotatedTo } = await rotating;
    expect(await opened(row.id)).toEqual({ keyId: 'k1', secret: rotatedTo, previous: original });
    // The next run re-encrypts what the rotation sealed with the old key.
    expect(await rekeyAll(webhooks, newRing, quiet)).toBe(1);
    expect(await opened(row.id)).toEqual({ keyId: 'k2', secret: rotatedTo, previous: original });
  });
});
