import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { type AccountId, Subjects } from '@emailverify/contracts';
import { JetStreamKit, MessageBus } from '@emailverify/messaging';
import { eventually, MailWorld, NatsCluster, type ServiceName, TestSuite } from '@emailverify/testing';
import Papa from 'papaparse';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const run = promisify(execFile);
const COMPOSE_AUTH = path.join(process.cwd(), 'deploy/compose/nats-auth.conf');
const USERS = ['gateway', 'credits', 'verifier', 'file-jobs', 'webhooks', 'admin'] as const;
type User = (typeof USERS)[number];
const passwordVariable = (user: User) => `NATS_${user.toUpperCase().replace(/-/g, '_')}_PASSWORD`;

/**
 * The suite on a NATS server with the users and permissions that compose and Helm deploy
 * (deploy/compose/nats-auth.conf; test/deploy/nats-auth.spec.ts checks Helm's copy is the same): every service
 * connects as its own user, the admin CLI as `admin`, and the whole API works without one permission violation;
 * what a user does not need is refused.
 */
describe('NATS users and permissions of compose and Helm', () => {
  const namespace = `t_auth_${randomBytes(4).toString('hex')}`;
  const passwords = Object.fromEntries(
    USERS.map((u) => [u, `p${randomBytes(12).toString('hex')}`]),
  ) as Record<User, string>;
  const testPassword = `p${randomBytes(12).toString('hex')}`;
  let nats: NatsCluster;
  let world: MailWorld;
  let suite: TestSuite;

  const userEnv = (user: User) => ({ NATS_USER: user, NATS_PASSWORD: passwords[user] });
  const connectAs = (user: string, pass: string, name = user) =>
    MessageBus.connect({ url: nats.url, user, pass, namespace, name, requestTimeoutMs: 2_000 });

  async function admin(...args: string[]): Promise<Record<string, string>> {
    const entry = path.join(process.cwd(), 'dist/tools/admin/main.js');
    const { stdout } = await run(process.execPath, [entry, ...args], {
      env: { PATH: process.env.PATH, NATS_URL: nats.url, NATS_NAMESPACE: namespace, ...userEnv('admin') },
    });
    return JSON.parse(stdout) as Record<string, string>;
  }

  /** The server's log lines that report a permission violation. */
  const violations = () =>
    nats
      .output(0)
      .split('\n')
      .filter((line) => /(Publish|Subscription|Permissions) Violation/i.test(line));

  beforeAll(async () => {
    // The deployed file, with its namespace filled in; one more user without limits for the test's own checks.
    const auth = readFileSync(COMPOSE_AUTH, 'utf8')
      .replaceAll('@NS@', namespace)
      .replace('users: [', 'users: [\n    { user: test, password: $NATS_TEST_PASSWORD }');
    nats = await NatsCluster.start({
      nodes: 1,
      extraConfig: auth,
      env: {
        ...Object.fromEntries(USERS.map((u) => [passwordVariable(u), passwords[u]])),
        NATS_TEST_PASSWORD: testPassword,
      },
    });
    world = await MailWorld.start();
    world.domain('auth.test', {
      mx: [{ priority: 10, host: 'mx.auth.test', smtp: { mailboxes: ['jane', 'bob', 'ann'] } }],
    });
    world.domain('slow.auth.test', {
      mx: [{ priority: 10, host: 'mx.slow.auth.test', smtp: { catchAll: true, delayMs: 300 } }],
    });
    const services: ServiceName[] = ['credits', 'verifier', 'file-jobs', 'webhooks'];
    suite = await TestSuite.start({
      world,
      namespace,
      natsUrl: nats.url.replace('nats://', `nats://test:${testPassword}@`),
      env: {
        NATS_URL: nats.url,
        FILE_CHUNK_SIZE: '5',
        FILE_RECOVERY_INTERVAL_MS: '500',
      },
      appEnv: {
        ...Object.fromEntries(services.map((s) => [s, userEnv(s)])),
        gateway: userEnv('gateway'),
      },
    });
  });
  afterAll(async () => {
    await suite?.stop();
    await nats?.stop();
  });

  it(
    'lets every service and the admin CLI do their work, without a permission violation',
    { timeout: 300_000 },
    async () => {
      expect((await fetch(`${suite.gatewayUrl()}/health/ready`)).status).toBe(200);

      // Admin CLI -> credits; the gateway resolves the key and reads the balance.
      const account = await admin('create-account', '--name', 'auth', '--credits', '500');
      const key = account.api_key;
      expect((await suite.call('/v1/credits', { key })).json.data.credits_balance).toBe(500);
      expect(await admin('add-credits', '--account', account.account_id, '--credits', '100')).toMatchObject({
        credits_balance: 600,
      });
      const second = await admin('create-key', '--account', account.account_id, '--name', 'second');
      expect((await admin('list-keys', '--account', account.account_id)).keys).toHaveLength(2);
      await admin('set-style', '--key', second.api_key_id, '--style', 'legacy');

      // Gateway -> verifier -> credits.
      const single = await suite.call('/v1/verify/single', {
        key,
        body: { email: 'jane@auth.test', check_smtp: true },
      });
      expect(single.json.data).toMatchObject({ status: 'valid' });
      const bulk = await suite.call('/v1/verify/bulk', {
        key,
        body: { emails: ['bob@auth.test', 'nobody@auth.test'], check_smtp: true },
      });
      expect(bulk.status, bulk.text).toBe(200);
      const report = await suite.call('/v1/verify/domain?domain=auth.test&check_smtp=true', { key });
      expect(report.status, report.text).toBe(200);
      expect(report.json.data).toMatchObject({ domain: 'auth.test', accepts_mail: true });

      // Gateway -> object store -> file-jobs -> credits, VERIFY_CHUNKS -> verifier -> CHUNK_RESULTS -> file-jobs,
      // EVENTS -> webhooks; status broadcasts wake the long poll.
      const hook = await suite.call('/v1/webhooks', {
        key,
        body: { url: 'https://hooks.example.com/emailverify', events: ['file.completed', 'file.failed'] },
      });
      expect(hook.status, hook.text).toBe(200);
      const hookId = hook.json.data.id as string;
      const emails = Array.from({ length: 23 }, (_, i) => `${['jane', 'bob', 'x'][i % 3]}${i}@auth.test`);
      const created = await suite.upload({
        key,
        file: { name: 'auth.csv', content: `email\n${emails.join('\n')}\n` },
      });
      expect(created.status, created.text).toBe(200);
      const id = created.json.data.task_id as string;
      const done = await suite.finishedJob(id, key);
      expect(done).toMatchObject({ status: 'completed', total_emails: 23, processed_emails: 23 });
      const results = await suite.call(`/v1/verify/file/${id}/results`, { key, style: 'legacy' });
      expect(results.status, results.text).toBe(200);
      expect(Papa.parse<string[]>(results.text.trimEnd()).data).toHaveLength(24);
      const filtered = await suite.call(`/v1/verify/file/${id}/results?invalid=true`, { key });
      expect(filtered.status, filtered.text).toBe(200);
      const direct = await fetch(done.direct_download_url as string);
      expect(direct.status).toBe(200);
      await direct.arrayBuffer();

      // An upload that is refused after it was stored (the file is removed again).
      const refused = await suite.upload({ key, file: { name: 'refused.pdf', content: 'not a table' } });
      expect(refused.status, refused.text).toBe(400);
      // file-jobs' sweep of unfinished files, as its timer runs it.
      const sweeper = await connectAs('file-jobs', passwords['file-jobs'], 'sweeper');
      try {
        expect(await new JetStreamKit(sweeper).removePartialObjects('files', 60_000)).toBe(0);
      } finally {
        await sweeper.close();
      }

      // A job that is paused, resumed and cancelled.
      const slow = Array.from({ length: 10 }, (_, i) => `user${i}@slow.auth.test`).join('\n');
      const other = await suite.upload({
        key,
        file: { name: 'other.txt', content: slow },
        fields: { check_smtp: 'true' },
      });
      const otherId = other.json.data.task_id as string;
      for (const action of ['pause', 'resume', 'cancel'])
        expect(
          (await suite.call(`/v1/verify/file/${otherId}/${action}`, { key, method: 'POST' })).status,
        ).toBe(200);

      // The webhook saw the completed job (its delivery fails: the host does not resolve on loopback).
      await eventually(async () => {
        const deliveries = await suite.call(`/v1/webhooks/${hookId}/deliveries`, { key });
        expect(deliveries.status, deliveries.text).toBe(200);
        expect(deliveries.json.data.deliveries.length).toBeGreaterThan(0);
      });
      expect((await suite.call('/v1/webhooks', { key })).json.data.total).toBe(1);
      const patched = await suite.call(`/v1/webhooks/${hookId}`, {
        key,
        method: 'PATCH',
        body: { is_active: false },
      });
      expect(patched.status, patched.text).toBe(200);
      expect((await suite.call(`/v1/webhooks/${hookId}`, { key, method: 'DELETE' })).status).toBe(200);

      // Self-service keys, the ledger and usage: gateway -> credits; the usage verifier and file-jobs recorded.
      const made = await suite.call('/v1/keys', { key, body: { name: 'self-service', sandbox: true } });
      expect(made.status, made.text).toBe(200);
      expect((await suite.call('/v1/keys', { key })).json.data.total).toBe(3);
      const withdrawn = await suite.call(`/v1/keys/${made.json.data.id}`, { key, method: 'DELETE' });
      expect(withdrawn.status, withdrawn.text).toBe(200);
      expect((await suite.call('/v1/credits', { key: made.json.data.api_key })).status).toBe(401);
      const ledger = await suite.call('/v1/credits/ledger', { key });
      expect(ledger.status, ledger.text).toBe(200);
      await eventually(async () => {
        const usage = await suite.call('/v1/credits/usage', { key });
        expect(usage.status, usage.text).toBe(200);
        // single 1, bulk 2, the completed job's 23 and what the cancelled one had verified.
        expect(usage.json.data.totals.verifications.total).toBeGreaterThanOrEqual(26);
      });

      // Revocation: admin -> credits -> broadcast to the gateway.
      await admin('revoke-key', '--key', account.api_key_id);
      expect((await suite.call('/v1/credits', { key })).status).toBe(401);

      expect(violations()).toEqual([]);
    },
  );

  it('refuses what a user does not need, and connections without a valid password', async () => {
    await expect(connectAs('gateway', 'wrong')).rejects.toThrow(/authorization/i);
    await expect(MessageBus.connect({ url: nats.url, namespace, name: 'anonymous' })).rejects.toThrow(
      /authorization/i,
    );

    const gateway = await connectAs('gateway', passwords.gateway, 'intruder');
    const webhooks = await connectAs('webhooks', passwords.webhooks, 'intruder');
    const verifier = await connectAs('verifier', passwords.verifier, 'intruder');
    try {
      // Only the admin CLI creates accounts or adds credits; the gateway cannot.
      await expect(
        gateway.request(Subjects.creditsAccountCreate, { name: 'x', credits: 1_000_000 }),
      ).rejects.toThrow();
      await expect(
        gateway.request(Subjects.creditsBalanceAdd, { accountId: 'x' as AccountId, credits: 1 }),
      ).rejects.toThrow();
      // Operators' key commands are the admin CLI's: the gateway revokes only through an account's own key.
      await expect(gateway.request(Subjects.creditsKeyRevoke, { apiKeyId: 'x' })).rejects.toThrow();
      await expect(
        gateway.request(Subjects.creditsKeySetStyle, { apiKeyId: 'x', style: 'legacy' }),
      ).rejects.toThrow();
      // Uploads and result files are for the gateway and file-jobs only.
      await expect(new JetStreamKit(webhooks).objectStore('files')).rejects.toThrow();
      // Nobody reads another user's replies, or requests meant for another service.
      const snoop = verifier.connection.subscribe('_INBOX.gateway.>');
      expect(await snoop.closed).toBeInstanceOf(Error);
      const steal = verifier.connection.subscribe(`${namespace}.credits.account.create`);
      expect(await steal.closed).toBeInstanceOf(Error);
    } finally {
      await Promise.all([gateway.close(), webhooks.close(), verifier.close()]);
    }
    expect(violations().length).toBeGreaterThan(0);
  });
});
