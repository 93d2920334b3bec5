import { randomBytes, randomUUID } from 'node:crypto';
import { type AccountId, DomainError, MAX_WEBHOOKS_PER_ACCOUNT } from '@emailverify/contracts';
import { beforeEach, describe, expect, it } from 'vitest';
import type { DeliveriesRepository, DeliveryRow } from '../delivery/deliveries.repository';
import { SecretBox } from './secret-box';
import type { WebhookRow, WebhooksRepository } from './webhooks.repository';
import { WebhooksService } from './webhooks.service';

// WebhooksService's decisions over in-memory stand-ins for its repositories: what is stored (and sealed), what
// is refused and how, the delivery log's pages, and redelivery. The SQL is the repositories' int-specs' business.

const newAccountId = () => randomUUID() as AccountId;

/** Webhooks and deliveries as the database would hold them, every read scoped by account as the SQL is. */
class Store {
  readonly webhooks: WebhookRow[] = [];
  readonly deliveries: Array<DeliveryRow & { account_id: AccountId; webhook_id: string }> = [];
  private tick = 0;

  /** A delivery of the webhook, made one second after the previous one. */
  delivery(hook: WebhookRow, status: DeliveryRow['status'] = 'failed'): DeliveryRow {
    this.tick += 1;
    const created = new Date(Date.UTC(2026, 10, 29, 10, 0, this.tick));
    const row = {
      id: randomUUID(),
      account_id: hook.account_id,
      webhook_id: hook.id,
      event: 'file.completed',
      job_id: randomUUID(),
      status,
      next_attempt_at: null,
      created_at: created,
      created_key: `${created.toISOString().replace('T', ' ').replace('Z', '')}000+00`,
      attempts: [
        {
          n: 1,
          at: created.toISOString(),
          http_status: 500,
          duration_ms: 12,
          error: 'HTTP 500',
          response_body: 'oops',
        },
      ],
    };
    this.deliveries.push(row);
    return row;
  }
}

function webhooksOver(store: Store): Pick<WebhooksRepository, keyof WebhooksRepository> {
  const mine = (accountId: AccountId, id: string) =>
    store.webhooks.find((w) => w.account_id === accountId && w.id === id);
  return {
    async create(accountId, webhook, limit) {
      if (store.webhooks.filter((w) => w.account_id === accountId).length >= limit) return undefined;
      const now = new Date();
      const row: WebhookRow = {
        id: webhook.id,
        account_id: accountId,
        url: webhook.url,
        events: webhook.events,
        secret_sealed: webhook.secretSealed,
        secret_key_id: webhook.secretKeyId,
        previous_secret_sealed: null,
        previous_secret_until: null,
        secret_rotated_at: null,
        is_active: true,
        created_at: now,
        updated_at: now,
        last_delivery_status: null,
        last_delivery_at: null,
        last_error: null,
        consecutive_failures: 0,
        breaker_opened_at: null,
        breaker_pause_ms: null,
        breaker_retry_at: null,
      };
      store.webhooks.push(row);
      return row;
    },
    async list(accountId) {
      return store.webhooks.filter((w) => w.account_id === accountId);
    },
    async rotateSecret(accountId, id, overlapHours, reseal) {
      const row = mine(accountId, id);
      if (!row) return undefined;
      const sealed = reseal(row);
      const now = Date.now();
      Object.assign(row, {
        secret_sealed: sealed.secretSealed,
        secret_key_id: sealed.keyId,
        previous_secret_sealed: sealed.previousSealed,
        previous_secret_until: new Date(now + overlapHours * 3_600_000),
        secret_rotated_at: new Date(now),
      });
      return row;
    },
    async resealBatch() {
      return 0;
    },
    async keyIdsInUse() {
      return [];
    },
    async find(accountId, id) {
      return mine(accountId, id);
    },
    async update(accountId, id, change) {
      const row = mine(accountId, id);
      if (!row) return undefined;
      if (change.url !== undefined) row.url = change.url;
      if (change.events !== undefined) row.events = change.events;
      if (change.isActive !== undefined) row.is_active = change.isActive;
      return row;
    },
    async delete(accountId, id) {
      const row = mine(accountId, id);
      if (row) store.webhooks.splice(store.webhooks.indexOf(row), 1);
      return row !== undefined;
    },
  };
}

function deliveriesOver(store: Store): Pick<DeliveriesRepository, 'list' | 'find' | 'redeliver'> {
  const find = (accountId: AccountId, webhookId: string, id: string) =>
    store.deliveries.find((d) => d.account_id === accountId && d.webhook_id === webhookId && d.id === id);
  return {
    async list(accountId, webhookId, limit, after) {
      // Newest first; `after` is the last row of the previous page.
      return store.deliveries
        .filter((d) => d.account_id === accountId && d.webhook_id === webhookId)
        .sort((a, b) => b.created_key.localeCompare(a.created_key) || b.id.localeCompare(a.id))
        .filter(
          (d) =>
            !after ||
            d.created_key < after.createdKey ||
            (d.created_key === after.createdKey && d.id < after.id),
        )
        .slice(0, limit);
    },
    async find(accountId, webhookId, id) {
      return find(accountId, webhookId, id);
    },
    async redeliver(accountId, webhookId, id) {
      const row = find(accountId, webhookId, id);
      if (row) Object.assign(row, { status: 'pending', next_attempt_at: new Date() });
      return row !== undefined;
    },
  };
}

/** The DomainError `work` fails with. */
async function refusal(work: Promise<unknown>): Promise<DomainError> {
  const err = await work.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(DomainError);
  return err as DomainError;
}

describe('WebhooksService', () => {
  const box = new SecretBox(randomBytes(32));
  let store: Store;
  let redeliveries: number;
  let service: WebhooksService;
  const account = newAccountId();

  const make = (allowPrivateNetworks = false, overlapHours?: number) =>
    new WebhooksService(
      webhooksOver(store) as WebhooksRepository,
      deliveriesOver(store) as DeliveriesRepository,
      box,
      {
        WEBHOOK_ALLOW_PRIVATE_NETWORKS: allowPrivateNetworks,
        ...(overlapHours === undefined ? {} : { WEBHOOK_SECRET_OVERLAP_HOURS: overlapHours }),
      },
      { kick: () => (redeliveries += 1) },
    );
  const create = (url = 'https://hooks.example.com/in', events = ['file.completed']) =>
    service.create({ accountId: account, url, events });

  beforeEach(() => {
    store = new Store();
    redeliveries = 0;
    service = make();
  });

  describe('create', () => {
    it('stores the webhook with its signing secret sealed, and shows the secret once', async () => {
      const { webhook, secret } = await create('https://Hooks.Example.com:443/in', [
        'file.completed',
        'file.failed',
        'file.completed',
      ]);
      expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
      expect(webhook).toMatchObject({
        accountId: account,
        url: 'https://hooks.example.com/in',
        events: ['file.completed', 'file.failed'],
        isActive: true,
        lastDeliveryStatus: null,
      });
      const [row] = store.webhooks;
      expect(row!.secret_sealed.includes(Buffer.from(secret))).toBe(false);
      expect(box.open(row!.secret_sealed, webhook.id)).toBe(secret);
      expect(JSON.stringify(await service.list(account))).not.toContain(secret);
    });

    it('refuses one more than the limit of an account, naming it, and stores nothing', async () => {
      for (let i = 0; i < MAX_WEBHOOKS_PER_ACCOUNT; i++) await create();
      const err = await refusal(create());
      expect(err.toBody()).toEqual({
        code: 'INVALID_REQUEST',
        message: `An account can have at most ${MAX_WEBHOOKS_PER_ACCOUNT} webhooks; delete one before adding another`,
        details: { limit: MAX_WEBHOOKS_PER_ACCOUNT },
      });
      expect(store.webhooks).toHaveLength(MAX_WEBHOOKS_PER_ACCOUNT);
      // Another account has its own limit.
      await service.create({ accountId: newAccountId(), url: 'https://a.example/', events: ['file.failed'] });
    });

    it.each([
      ['http://hooks.example.com/in', 'url: must be an https URL'],
      ['https://user:pw@hooks.example.com/in', 'url: must not contain a user name or password'],
      ['https://10.0.0.7/in', 'url: 10.0.0.7 is a non-public address'],
      ['hooks.example.com', 'url: must be an absolute https URL'],
    ])('refuses %s naming the field url', async (url, message) => {
      const err = await refusal(create(url));
      expect(err.code).toBe('INVALID_REQUEST');
      expect(err.message).toContain(message);
      expect(err.details).toEqual({ field: 'url' });
      expect(store.webhooks).toEqual([]);
    });

    it('takes a private address where private networks are allowed', async () => {
      service = make(true);
      expect((await create('https://10.0.0.7/in')).webhook.url).toBe('https://10.0.0.7/in');
    });

    it.each([[[]], [['file.started']]])('refuses the events %j naming the field', async (events) => {
      const err = await refusal(create(undefined, events));
      expect(err.details).toEqual({ field: 'events' });
      expect(store.webhooks).toEqual([]);
    });
  });

  describe('list, update, delete', () => {
    it('lists only the account own webhooks', async () => {
      await create();
      await service.create({
        accountId: newAccountId(),
        url: 'https://other.example/',
        events: ['file.failed'],
      });
      const { webhooks, total } = await service.list(account);
      expect(total).toBe(1);
      expect(webhooks.map((w) => w.accountId)).toEqual([account]);
    });

    it('changes what is given, checked as on create', async () => {
      const { webhook } = await create();
      const updated = await service.update({
        accountId: account,
        webhookId: webhook.id,
        url: 'https://new.example.com/hook',
        isActive: false,
      });
      expect(updated).toMatchObject({
        url: 'https://new.example.com/hook',
        events: ['file.completed'],
        isActive: false,
      });
      const err = await refusal(
        service.update({ accountId: account, webhookId: webhook.id, url: 'http://new.example.com/' }),
      );
      expect(err.details).toEqual({ field: 'url' });
      expect(store.webhooks[0]!.url).toBe('https://new.example.com/hook');
    });

    it('refuses an update that changes nothing', async () => {
      const { webhook } = await create();
      const err = await refusal(service.update({ accountId: account, webhookId: webhook.id }));
      expect(err.toBody()).toEqual({
        code: 'INVALID_REQUEST',
        message: 'body: give at least one of url, events, is_active',
        details: { field: 'body' },
      });
    });

    it('finds no webhook of another account, nor one named by something not an id', async () => {
      const { webhook } = await create();
      const stranger = newAccountId();
      for (const attempt of [
        service.update({ accountId: stranger, webhookId: webhook.id, isActive: false }),
        service.delete({ accountId: stranger, webhookId: webhook.id }),
        service.listDeliveries({ accountId: stranger, webhookId: webhook.id, limit: 20 }),
        service.delete({ accountId: account, webhookId: 'not-an-id' }),
      ])
        expect((await refusal(attempt)).code).toBe('WEBHOOK_NOT_FOUND');
      expect(store.webhooks[0]!.is_active).toBe(true);
    });

    it('deletes a webhook once', async () => {
      const { webhook } = await create();
      expect(await service.delete({ accountId: account, webhookId: webhook.id })).toEqual({
        webhookId: webhook.id,
      });
      expect((await refusal(service.delete({ accountId: account, webhookId: webhook.id }))).code).toBe(
        'WEBHOOK_NOT_FOUND',
      );
    });
  });

  describe('rotateSecret', () => {
    it('returns a new secret once and keeps the old one, sealed, to sign beside it for the overlap', async () => {
      const { webhook, secret: old } = await create();
      const rotated = await service.rotateSecret({ accountId: account, webhookId: webhook.id });
      expect(rotated.secret).toMatch(/^whsec_/);
      expect(rotated.secret).not.toBe(old);
      const [row] = store.webhooks;
      expect(box.open(row!.secret_sealed, webhook.id, row!.secret_key_id)).toBe(rotated.secret);
      expect(box.open(row!.previous_secret_sealed!, webhook.id, row!.secret_key_id)).toBe(old);
      expect(rotated.webhook.secretRotatedAt).not.toBeNull();
      const expires = Date.parse(rotated.webhook.previousSecretExpiresAt!);
      expect(expires - Date.parse(rotated.webhook.secretRotatedAt!)).toBeGreaterThan(23 * 3_600_000);
      expect(JSON.stringify(await service.list(account))).not.toContain(rotated.secret);
    });

    it('keeps the old secret for WEBHOOK_SECRET_OVERLAP_HOURS, and shows no overlap once it is over', async () => {
      service = make(false, 2);
      const { webhook } = await create();
      const rotated = await service.rotateSecret({ accountId: account, webhookId: webhook.id });
      expect(
        Date.parse(rotated.webhook.previousSecretExpiresAt!) - Date.parse(rotated.webhook.secretRotatedAt!),
      ).toBe(2 * 3_600_000);
      // The overlap over: the list shows no previous secret, and the rotation stays on record.
      store.webhooks[0]!.previous_secret_until = new Date(Date.now() - 1_000);
      const [shown] = (await service.list(account)).webhooks;
      expect(shown).toMatchObject({
        previousSecretExpiresAt: null,
        secretRotatedAt: rotated.webhook.secretRotatedAt,
      });
    });

    it('finds no webhook of another account, nor one named by something not an id', async () => {
      const { webhook } = await create();
      for (const ref of [
        { accountId: newAccountId(), webhookId: webhook.id },
        { accountId: account, webhookId: 'nope' },
      ])
        expect((await refusal(service.rotateSecret(ref))).code).toBe('WEBHOOK_NOT_FOUND');
    });
  });

  describe('the delivery log', () => {
    it('pages through the deliveries newest first, with a cursor while more remain', async () => {
      const { webhook } = await create();
      const hook = store.webhooks[0]!;
      const made = Array.from({ length: 5 }, () => store.delivery(hook));
      const ref = { accountId: account, webhookId: webhook.id };
      const first = await service.listDeliveries({ ...ref, limit: 2 });
      const second = await service.listDeliveries({ ...ref, limit: 2, cursor: first.nextCursor! });
      const last = await service.listDeliveries({ ...ref, limit: 2, cursor: second.nextCursor! });
      expect([first, second, last].map((page) => page.deliveries.map((d) => d.id))).toEqual([
        [made[4]!.id, made[3]!.id],
        [made[2]!.id, made[1]!.id],
        [made[0]!.id],
      ]);
      expect(last.nextCursor).toBeNull();
      expect(first.deliveries[0]).toMatchObject({
        event: 'file.completed',
        status: 'failed',
        attempts: [{ httpStatus: 500, durationMs: 12, error: 'HTTP 500', responseBody: 'oops' }],
        nextAttemptAt: null,
      });
    });

    it('has no cursor when the page holds the rest exactly', async () => {
      const { webhook } = await create();
      store.delivery(store.webhooks[0]!);
      store.delivery(store.webhooks[0]!);
      const page = await service.listDeliveries({ accountId: account, webhookId: webhook.id, limit: 2 });
      expect(page.deliveries).toHaveLength(2);
      expect(page.nextCursor).toBeNull();
    });

    it('carries the breaker; a pending delivery of an open breaker waits for its probe at the earliest', async () => {
      const { webhook } = await create();
      const hook = store.webhooks[0]!;
      const ref = { accountId: account, webhookId: webhook.id };
      const due = Object.assign(store.delivery(hook, 'pending'), {
        next_attempt_at: new Date(Date.now() - 1_000),
      });
      const ended = store.delivery(hook, 'failed');
      expect((await service.listDeliveries({ ...ref, limit: 10 })).breaker).toEqual({
        state: 'closed',
        retryAt: null,
        consecutiveFailures: 0,
      });
      const retryAt = new Date(Date.now() + 30_000);
      Object.assign(hook, {
        consecutive_failures: 10,
        breaker_opened_at: new Date(),
        breaker_pause_ms: 30_000,
        breaker_retry_at: retryAt,
      });
      const page = await service.listDeliveries({ ...ref, limit: 10 });
      expect(page.breaker).toEqual({
        state: 'open',
        retryAt: retryAt.toISOString(),
        consecutiveFailures: 10,
      });
      const byId = new Map(page.deliveries.map((d) => [d.id, d]));
      expect(byId.get(due.id)!.nextAttemptAt).toBe(retryAt.toISOString());
      expect(byId.get(ended.id)!.nextAttemptAt).toBeNull();
      // The webhook list says the same; once its probe time has passed, it is half-open.
      expect((await service.list(account)).webhooks[0]!.breaker.state).toBe('open');
      hook.breaker_retry_at = new Date(Date.now() - 1);
      expect((await service.list(account)).webhooks[0]!.breaker.state).toBe('half_open');
    });

    it.each([
      'garbage',
      Buffer.from(JSON.stringify(['2026-11-29 10:00:00+00', 'not-a-uuid'])).toString('base64url'),
      Buffer.from(JSON.stringify(["'; DROP TABLE x; --", randomUUID()])).toString('base64url'),
    ])('refuses a cursor it did not give out (%s)', async (cursor) => {
      const { webhook } = await create();
      const err = await refusal(
        service.listDeliveries({ accountId: account, webhookId: webhook.id, limit: 2, cursor }),
      );
      expect(err.toBody()).toEqual({
        code: 'INVALID_REQUEST',
        message: 'cursor: not a cursor this service gave out',
        details: { field: 'cursor' },
      });
    });
  });

  describe('redeliver', () => {
    it('makes one more attempt due now and wakes the dispatcher', async () => {
      const { webhook } = await create();
      const delivery = store.delivery(store.webhooks[0]!, 'failed');
      const again = await service.redeliver({
        accountId: account,
        webhookId: webhook.id,
        deliveryId: delivery.id,
      });
      expect(again).toMatchObject({ id: delivery.id, status: 'pending', nextAttemptAt: expect.any(String) });
      expect(redeliveries).toBe(1);
    });

    it('refuses a delivery of an inactive webhook, saying how to activate it', async () => {
      const { webhook } = await create();
      const delivery = store.delivery(store.webhooks[0]!, 'failed');
      await service.update({ accountId: account, webhookId: webhook.id, isActive: false });
      const err = await refusal(
        service.redeliver({ accountId: account, webhookId: webhook.id, deliveryId: delivery.id }),
      );
      expect(err.toBody()).toEqual({
        code: 'INVALID_REQUEST',
        message: 'webhook: the webhook is inactive; activate it (PATCH is_active=true) before redelivering',
        details: { field: 'is_active' },
      });
      expect(delivery.status).toBe('failed');
      expect(redeliveries).toBe(0);
    });

    it('refuses a delivery the webhook does not have', async () => {
      const { webhook } = await create();
      await create('https://other.example.com/in');
      const elsewhere = store.delivery(store.webhooks[1]!);
      for (const deliveryId of [elsewhere.id, randomUUID(), 'nope']) {
        const err = await refusal(
          service.redeliver({ accountId: account, webhookId: webhook.id, deliveryId }),
        );
        expect(err.code).toBe('NOT_FOUND');
      }
      expect(redeliveries).toBe(0);
    });
  });
});
