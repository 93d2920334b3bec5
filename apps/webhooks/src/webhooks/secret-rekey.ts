import { Inject, Injectable, type OnApplicationBootstrap } from '@nestjs/common';
import { LOGGER, PeriodicTask } from '@emailverify/service-kit';
import type { Logger } from 'pino';
import { SecretBox } from './secret-box';
import { WebhooksRepository } from './webhooks.repository';

/**
 * How often each replica looks for secrets sealed by an older key: after a restart with a new first key it
 * starts at once; the later runs catch rows that a replica still on the old ring sealed during a rollout.
 */
const REKEY_INTERVAL_MS = 300_000;
/** Rows re-encrypted per transaction: short transactions, so rotations and creates never wait long. */
const REKEY_BATCH = 100;

/**
 * Re-encrypts webhook secrets sealed by any key of WEBHOOK_SECRET_KEYS but the first, so an operator changes
 * the encryption key by restarting with a new first key (the old one kept after it until no row uses it).
 * Deliveries go on meanwhile: every key of the ring opens what it sealed, and each row names its key.
 */
@Injectable()
export class SecretRekey extends PeriodicTask implements OnApplicationBootstrap {
  constructor(webhooks: WebhooksRepository, box: SecretBox, @Inject(LOGGER) logger: Logger) {
    super(
      'secret re-encryption',
      REKEY_INTERVAL_MS,
      async () => {
        await rekeyAll(webhooks, box, logger);
      },
      logger,
    );
  }

  onApplicationBootstrap(): void {
    void this.runOnce();
  }
}

/** Re-encrypts every row it can open with an older key; names the key ids it cannot open. */
export async function rekeyAll(
  webhooks: WebhooksRepository,
  box: SecretBox,
  logger: Logger,
): Promise<number> {
  const inUse = await webhooks.keyIdsInUse();
  const old = inUse.filter((k) => k.secret_key_id !== box.keyId && box.has(k.secret_key_id));
  const unknown = inUse.filter((k) => !box.has(k.secret_key_id));
  if (unknown.length > 0)
    logger.error(
      { keys: unknown.map((k) => ({ id: k.secret_key_id, webhooks: k.count })) },
      'webhook secrets sealed by keys missing from WEBHOOK_SECRET_KEYS cannot be opened; add those keys back',
    );
  if (old.length === 0) return 0;
  const oldIds = old.map((k) => k.secret_key_id);
  let total = 0;
  for (;;) {
    const done = await webhooks.resealBatch(oldIds, REKEY_BATCH, (row) => ({
      secret_key_id: box.keyId,
      secret_sealed: box.seal(box.open(row.secret_sealed, row.id, row.secret_key_id), row.id),
      previous_secret_sealed: row.previous_secret_sealed
        ? box.seal(box.open(row.previous_secret_sealed, row.id, row.secret_key_id), row.id)
        : null,
    }));
    total += done;
    if (done < REKEY_BATCH) break;
  }
  logger.info({ reencrypted: total, from: oldIds, to: box.keyId }, 'webhook secrets re-encrypted');
  return total;
}
