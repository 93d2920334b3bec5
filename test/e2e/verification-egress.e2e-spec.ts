import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { type Account, MailWorld, SocksServer, TestSuite } from '@emailverify/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const CAP = 2;

/**
 * Two verifier processes sharing Redis, egress through a loopback SOCKS5 proxy and provider rules from a
 * file: the settings as an operator sets them, through the HTTP API.
 */
describe('verifier replicas, SMTP egress and provider rules', () => {
  let world: MailWorld;
  let proxy: SocksServer;
  let suite: TestSuite;
  let account: Account;
  const dir = mkdtempSync(path.join(tmpdir(), 'verifier-e2e-'));

  beforeAll(async () => {
    world = await MailWorld.start();
    proxy = await SocksServer.start({ user: 'egress', password: 'proxy secret' });
    const mailboxes = Array.from({ length: 20 }, (_, i) => `user${i}`);
    world
      .domain('busy.test', {
        // Each session stays open a while after RCPT, so sessions overlap and the cap is what limits them.
        mx: [{ priority: 10, host: 'mx.busy.test', smtp: { mailboxes, holdMs: 600 } }],
      })
      .domain('ruled.test', {
        mx: [{ priority: 10, host: 'in.accepts-all.test', smtp: { mailboxes: ['jane'] } }],
      })
      .domain('tls.test', {
        mx: [{ priority: 10, host: 'mx.tls.test', smtp: { mailboxes: ['jane'], starttls: 'required' } }],
      });
    const rules = path.join(dir, 'provider-rules.json');
    writeFileSync(
      rules,
      JSON.stringify({
        rules: [
          {
            name: 'accepts all',
            mx: ['*.accepts-all.test'],
            catchAllProbe: false,
            acceptsAnyRecipient: true,
          },
        ],
      }),
    );
    suite = await TestSuite.start({
      world,
      services: ['credits', 'verifier'],
      redis: true,
      env: {
        SMTP_MAX_CONCURRENCY_PER_MX: String(CAP),
        // Long enough that every address waits for a slot instead of falling back to MX-only.
        SMTP_SEMAPHORE_TIMEOUT_MS: '120000',
        SMTP_CONNECT_TIMEOUT_MS: '5000',
        SMTP_COMMAND_TIMEOUT_MS: '10000',
        SMTP_PROXY_URL: proxy.url(),
        SMTP_PROVIDER_RULES_FILE: rules,
      },
    });
    await suite.startService('verifier', {}, 1);
    account = await suite.createAccount({ credits: 1000 });
  });

  afterAll(async () => {
    await suite?.stop();
    await proxy?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  const single = (email: string) =>
    suite.call('/v1/verify/single', { key: account.apiKey, body: { email, check_smtp: true } });

  /** Addresses this verifier process has verified, from its /metrics. */
  async function verifiedBy(replica: number): Promise<number> {
    const text = await (await fetch(`${suite.serviceUrl('verifier', replica)}/metrics`)).text();
    return [...text.matchAll(/^(?:emailverify_)?verification_outcomes_total\{[^}]*\} (\d+)/gm)].reduce(
      (sum, m) => sum + Number(m[1]),
      0,
    );
  }

  it('never holds more than SMTP_MAX_CONCURRENCY_PER_MX sessions to one MX host across two verifiers', async () => {
    world.resetCounters();
    const emails = Array.from({ length: 16 }, (_, i) => `user${i}@busy.test`);
    const replies = await Promise.all(emails.map((email) => single(email)));
    for (const reply of replies) {
      expect(reply.status).toBe(200);
      expect(reply.json.data).toMatchObject({ status: 'valid', reason: 'accepted' });
    }
    // Both processes did part of the work, and together they reached the cap but never passed it.
    expect(await verifiedBy(0)).toBeGreaterThan(0);
    expect(await verifiedBy(1)).toBeGreaterThan(0);
    expect(world.smtpConnections('mx.busy.test')).toBeGreaterThanOrEqual(emails.length);
    expect(world.smtpPeakSessions('mx.busy.test')).toBe(CAP);
  });

  it('sends every SMTP connection through the SOCKS5 proxy of SMTP_PROXY_URL', async () => {
    world.resetCounters();
    proxy.resetCounters();
    const reply = await single('jane@tls.test');
    expect(reply.json.data).toMatchObject({ status: 'valid', reason: 'accepted', smtp_check: true });
    expect(world.smtpTlsSessions('mx.tls.test')).toBe(1);
    expect(world.smtpConnections()).toBeGreaterThan(0);
    expect(proxy.connections()).toHaveLength(world.smtpConnections());
  });

  it('reports an address accepted by a provider that accepts every RCPT (SMTP_PROVIDER_RULES_FILE) as catchall', async () => {
    const reply = await single('jane@ruled.test');
    expect(reply.json.data).toMatchObject({
      status: 'catchall',
      reason: 'catch_all',
      is_catchall: true,
      smtp_check: true,
      credits_used: 1,
    });
  });
});
