import { randomBytes } from 'node:crypto';
import { Subjects } from '@emailverify/contracts';
import {
  type Account,
  eventually,
  MailWorld,
  type ReceivedRequest,
  TestSuite,
  verifySignatures,
  WebhookReceiver,
} from '@emailverify/testing';
import { Webhook as StandardWebhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- bodies are checked field by field
type Json = Record<string, any>;

/** Whether a receiver verifying with `secret` accepts the delivery, by each of the two signature schemes. */
function accepted(request: ReceivedRequest, secret: string): { contract: boolean; standard: boolean } {
  const contract = verifySignatures({
    secret,
    headers: request.headers,
    rawBody: request.rawBody,
  }).xWebhookSignature;
  let standard = true;
  try {
    // The standard's own verification library reads `webhook-id`, `webhook-timestamp`, `webhook-signature`.
    new StandardWebhook(secret).verify(request.body, request.headers as Record<string, string>);
  } catch {
    standard = false;
  }
  return { contract, standard };
}

/**
 * The end of the overlap (the old secret stops signing, the webhook shows no previous secret) is asserted in
 * apps/webhooks/src/webhooks/secret-rotation.int-spec.ts, delivery/signing.spec.ts and webhooks.service.spec.ts.
 */
describe('webhooks: rotating signing secrets and the key that encrypts them', () => {
  let world: MailWorld;
  let receiver: WebhookReceiver;
  let suite: TestSuite;
  let account: Account;

  beforeAll(async () => {
    world = await MailWorld.start();
    world.domain('rotation.test', {
      mx: [{ priority: 10, host: 'mx.rotation.test', smtp: { mailboxes: ['jane'] } }],
    });
    receiver = await WebhookReceiver.start();
    suite = await TestSuite.start({
      world,
      env: {
        NODE_EXTRA_CA_CERTS: receiver.caFile,
        WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
        WEBHOOK_POLL_INTERVAL_MS: '100',
      },
    });
    account = await suite.createAccount({ credits: 100_000 });
  });
  afterAll(async () => {
    await suite?.stop();
    await receiver?.stop();
  });

  let jobCount = 0;
  /** Runs a small file job to its end, which announces file.completed to the account's webhooks. */
  async function runJob(): Promise<void> {
    jobCount += 1;
    const csv = `email\njane@rotation.test\nx${jobCount}@rotation.test\n`;
    const up = await suite.upload({ key: account.apiKey, file: { name: `r${jobCount}.csv`, content: csv } });
    expect(up.status).toBe(200);
    await suite.finishedJob(up.json.data.task_id as string, account.apiKey);
  }

  /** Runs a job and returns the delivery `path` received for it. */
  async function deliveryTo(path: string): Promise<ReceivedRequest> {
    const before = receiver.requests(path).length;
    await runJob();
    const requests = await receiver.waitFor(path, before + 1);
    return requests[before]!;
  }

  const createWebhook = async (path: string) =>
    suite.bus.request(Subjects.webhooksCreate, {
      accountId: account.accountId,
      url: receiver.url(path),
      events: ['file.completed'],
    });

  const rotate = (id: string, style?: 'legacy') =>
    suite.call(`/v1/webhooks/${id}/rotate-secret`, { method: 'POST', key: account.apiKey, style });

  it('answers the new secret once, in both styles, with the overlap on the webhook', async () => {
    const { webhook, secret } = await createWebhook('/styles');
    const current = await rotate(webhook.id);
    expect(current.status).toBe(200);
    const data: Json = current.json.data;
    expect(data.secret).toMatch(/^whsec_/);
    expect(data.secret).not.toBe(secret);
    expect(Date.parse(data.previous_secret_expires_at) - Date.parse(data.secret_rotated_at)).toBe(
      24 * 3_600_000,
    );

    const legacy = await rotate(webhook.id, 'legacy');
    expect(legacy.status).toBe(200);
    expect(legacy.json.secret).toMatch(/^whsec_/);
    expect(legacy.json.secret).not.toBe(data.secret);

    const listed = await suite.call('/v1/webhooks', { key: account.apiKey });
    const shown: Json = listed.json.data.webhooks.find((w: Json) => w.id === webhook.id);
    expect(shown.secret).toBeUndefined();
    expect(shown.secret_rotated_at).toBe(legacy.json.secret_rotated_at);
    expect(JSON.stringify(listed.json)).not.toContain(legacy.json.secret);

    for (const style of [undefined, 'legacy'] as const) {
      const missing = await rotate('3d6f1a52-8c1e-4b7a-9f0e-2a5c7d9e1b34', style);
      expect(missing.status).toBe(404);
      expect(missing.json.error.code).toBe('WEBHOOK_NOT_FOUND');
      if (!style) expect(missing.json.code).toBe('4040');
    }
  });

  it('during the overlap, receivers verifying with the old secret and with the new one both accept', async () => {
    const { webhook, secret: oldSecret } = await createWebhook('/overlap');
    const before = await deliveryTo('/overlap');
    expect(accepted(before, oldSecret)).toEqual({ contract: true, standard: true });

    const newSecret: string = (await rotate(webhook.id)).json.data.secret;
    const during = await deliveryTo('/overlap');
    expect(during.headers['webhook-signature']!.split(' ')).toHaveLength(2);
    // The contract's single signature stays the old secret's until the overlap ends.
    expect(accepted(during, oldSecret)).toEqual({ contract: true, standard: true });
    expect(accepted(during, newSecret)).toEqual({ contract: false, standard: true });
  });

  it('a restart with a new first key re-encrypts every secret, and deliveries go on', async () => {
    const webhooks = await Promise.all([createWebhook('/rekey'), createWebhook('/rekey-2')]);
    const rotated = await rotate(webhooks[1].webhook.id);
    const secrets = [webhooks[0].secret, rotated.json.data.secret as string];
    const newKey = randomBytes(32).toString('hex');

    // The operator puts the new key first and keeps the old one (WEBHOOK_SECRET_KEY, id `default`) after it.
    await suite.stopService('webhooks');
    await suite.startService('webhooks', {
      WEBHOOK_SECRET_KEYS: `k2:${newKey},default:${suite.webhookSecretKey}`,
      LOG_LEVEL: 'info',
    });
    const first = await deliveryTo('/rekey');
    expect(accepted(first, secrets[0]!)).toEqual({ contract: true, standard: true });
    await eventually(
      () =>
        expect(suite.processes.get('webhooks')!.output.join('')).toContain('webhook secrets re-encrypted'),
      { timeoutMs: 30_000, intervalMs: 200 },
    );

    // With the old key gone, every secret still opens: each was re-encrypted with the new one.
    await suite.stopService('webhooks');
    await suite.startService('webhooks', { WEBHOOK_SECRET_KEYS: `k2:${newKey}`, WEBHOOK_SECRET_KEY: '' });
    const [a, b] = [receiver.requests('/rekey').length, receiver.requests('/rekey-2').length];
    await runJob();
    const [toFirst] = (await receiver.waitFor('/rekey', a + 1)).slice(a);
    const [toSecond] = (await receiver.waitFor('/rekey-2', b + 1)).slice(b);
    expect(accepted(toFirst!, secrets[0]!)).toEqual({ contract: true, standard: true });
    expect(accepted(toSecond!, secrets[1]!).standard).toBe(true);
  });
});
