import {
  type Account,
  eventually,
  MailWorld,
  TestSuite,
  verifySignatures,
  WebhookReceiver,
} from '@emailverify/testing';
import { Subjects, type Webhook } from '@emailverify/contracts';
import { SANDBOX_TRIGGERS, type SandboxTrigger } from '@emailverify/verification';
import Papa from 'papaparse';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

// A sandbox key against the whole suite: every trigger of the table through single, bulk, the disposable check,
// the domain report and a file job with its webhook; nothing reaches the mail world (DNS, SMTP, HTTP) and the
// verifier's outbound metrics stay still; nothing is charged; nothing lands in the live result cache.

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- replies are checked field by field
type Json = Record<string, any>;

const DOMAIN = 'sandbox.test';

/** The reason an answer shows: the table's, or its SMTP form when check_smtp asked for one. */
const reasonOf = (t: SandboxTrigger, checkSmtp: boolean) =>
  checkSmtp && t.smtpReason ? t.smtpReason : t.reason;

/** The sum of a metric's samples on a /metrics page (every label set). */
function total(metrics: string, name: string): number {
  let sum = 0;
  for (const line of metrics.split('\n')) {
    if (line.startsWith(`${name}{`) || line.startsWith(`${name} `)) sum += Number(line.split(' ').pop());
  }
  return sum;
}

describe('sandbox keys: canned answers through the whole pipeline, no network, no charge', () => {
  let world: MailWorld;
  let receiver: WebhookReceiver;
  let suite: TestSuite;
  let account: Account;
  let sandboxKey: string;
  /** The verifier's outbound metrics before any sandbox request. */
  let outboundBefore: { dns: number; smtp: number };

  const credits = async () => (await suite.call('/v1/credits', { key: account.apiKey })).json.data as Json;
  const verifierMetrics = async () => {
    const text = await (await fetch(`${suite.serviceUrl('verifier')}/metrics`)).text();
    return {
      dns: total(text, 'emailverify_dns_query_seconds_count'),
      smtp: total(text, 'emailverify_smtp_probe_seconds_count'),
    };
  };

  beforeAll(async () => {
    world = await MailWorld.start();
    // Were a sandbox request to leave the verifier, this world would see it: its DNS answers for the domain and
    // its SMTP host accepts every mailbox.
    world.domain(DOMAIN, { mx: [{ priority: 10, host: `mx.${DOMAIN}`, smtp: { catchAll: true } }] });
    receiver = await WebhookReceiver.start();
    suite = await TestSuite.start({
      world,
      env: {
        GRAVATAR_BASE_URL: world.gravatarBaseUrl,
        RDAP_BASE_URL: world.rdapBaseUrl,
        NODE_EXTRA_CA_CERTS: receiver.caFile,
        WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
        WEBHOOK_POLL_INTERVAL_MS: '100',
        FILE_RECOVERY_INTERVAL_MS: '500',
        // Small chunks and a small window: a file job runs through many chunks, and can be paused mid-way.
        FILE_CHUNK_SIZE: '5',
        FILE_CHUNKS_IN_FLIGHT: '1',
      },
    });
    // Fewer credits than a file job below has addresses: a sandbox job reserves nothing.
    account = await suite.createAccount({ credits: 10 });
    const made = await suite.bus.request(Subjects.creditsKeyCreate, {
      accountId: account.accountId,
      name: 'sandbox',
      mode: 'sandbox',
    });
    sandboxKey = made.apiKey;
    expect(sandboxKey).toMatch(/^ev_test_/);
    await world.ready();
    world.resetCounters();
    outboundBefore = await verifierMetrics();
  });
  afterAll(async () => {
    await suite?.stop();
    await receiver?.stop();
  });

  it('answers every trigger on /verify/single, in both styles, free', async () => {
    for (const t of SANDBOX_TRIGGERS) {
      for (const email of [`${t.trigger}@${DOMAIN}`, `jane+${t.trigger}@${DOMAIN}`]) {
        const current = await suite.call('/v1/verify/single', { key: sandboxKey, body: { email } });
        expect(current.status, email).toBe(200);
        expect(current.json.data, email).toMatchObject({
          email,
          status: t.status,
          reason: reasonOf(t, false),
          credits_used: 0,
        });
        // Rate-limited as a live key is.
        expect(current.headers.get('x-ratelimit-limit')).toMatch(/^\d+$/);
      }
      const smtp = await suite.call('/v1/verify/single', {
        key: sandboxKey,
        body: { email: `${t.trigger}@${DOMAIN}`, check_smtp: true },
      });
      expect(smtp.json.data).toMatchObject({ status: t.status, reason: reasonOf(t, true), credits_used: 0 });
    }
    const again = await suite.call('/v1/verify/single', {
      key: sandboxKey,
      style: 'legacy',
      body: { email: `valid@${DOMAIN}` },
    });
    expect(again.json).toMatchObject({ email: `valid@${DOMAIN}`, status: 'valid', credits_used: 0 });
    // Malformed input is refused as for a live key.
    for (const style of ['current', 'legacy'] as const) {
      const bad = await suite.call('/v1/verify/single', { key: sandboxKey, style, body: { email: 'nope' } });
      expect(bad.status).toBe(400);
      expect(bad.json.error.code).toBe('INVALID_EMAIL');
    }
  });

  it('answers every trigger on /verify/bulk, malformed items invalid, in order, free', async () => {
    const emails = [...SANDBOX_TRIGGERS.map((t) => `x+${t.trigger}@${DOMAIN}`), 'not an address'];
    const res = await suite.call('/v1/verify/bulk', { key: sandboxKey, body: { emails, check_smtp: true } });
    expect(res.status).toBe(200);
    const data = res.json.data as Json;
    expect(data.credits_used).toBe(0);
    expect((data.results as Json[]).map((r) => [r.email, r.status, r.credits_used])).toEqual([
      ...SANDBOX_TRIGGERS.map((t) => [`x+${t.trigger}@${DOMAIN}`, t.status, 0]),
      ['not an address', 'invalid', 0],
    ]);
    // The legacy items carry the reason (null where the narrowed status is valid or catchall).
    const legacy = await suite.call('/v1/verify/bulk', {
      key: sandboxKey,
      style: 'legacy',
      body: { emails },
    });
    const reasons = (legacy.json.results as Json[]).map((r) => r.reason as string | null);
    expect(reasons.at(-1)).toBe('invalid_syntax');
    expect(reasons).toContain('mx_only_verification_semaphore_timeout');
    expect(reasons).toContain('domain_not_found');
  });

  it('answers the disposable check and the domain report from the table', async () => {
    const disposable = async (email: string) =>
      (await suite.call(`/v1/verify/disposable?email=${encodeURIComponent(email)}`, { key: sandboxKey })).json
        .data as Json;
    expect(await disposable(`disposable@${DOMAIN}`)).toMatchObject({ is_disposable: true });
    expect(await disposable('jane@mailinator.com')).toMatchObject({ is_disposable: false });

    const domain = async (name: string) =>
      (await suite.call(`/v1/verify/domain?domain=${name}&check_smtp=true`, { key: sandboxKey })).json
        .data as Json;
    expect(await domain(`catchall.${DOMAIN}`)).toMatchObject({
      accepts_mail: true,
      is_catchall: true,
      credits_used: 0,
    });
    expect(await domain(DOMAIN)).toMatchObject({ accepts_mail: true, is_catchall: false, credits_used: 0 });
    expect(await domain(`no-domain.${DOMAIN}`)).toMatchObject({
      accepts_mail: false,
      reason: 'domain_not_found',
    });
  });

  it('runs a file job through the pipeline, answers each row from the table, and signs a sandbox webhook', async () => {
    const hook: { webhook: Webhook; secret: string } = await suite.bus.request(Subjects.webhooksCreate, {
      accountId: account.accountId,
      url: receiver.url('/sandbox'),
      events: ['file.completed', 'file.failed'],
    });
    // Every trigger twice (bare and tagged), a repeat and a malformed cell: more addresses than the balance.
    const addresses = SANDBOX_TRIGGERS.flatMap((t) => [`${t.trigger}@${DOMAIN}`, `x+${t.trigger}@${DOMAIN}`]);
    const rows = [...addresses, `valid@${DOMAIN}`, 'not an address'];
    const before = await credits();
    const up = await suite.upload({
      key: sandboxKey,
      file: { name: 'sandbox.csv', content: `email\n${rows.join('\n')}\n` },
    });
    expect(up.status).toBe(200);
    const id = up.json.data.task_id as string;
    const done = await suite.finishedJob(id, sandboxKey);
    const count = (status: string) =>
      2 * SANDBOX_TRIGGERS.filter((t) => t.status === status).length + (status === 'invalid' ? 1 : 0);
    expect(done).toMatchObject({
      status: 'completed',
      progress: 100,
      total_emails: addresses.length + 1,
      credits_used: 0,
      valid_emails: count('valid'),
      invalid_emails: count('invalid'),
      unknown_emails: count('unknown'),
      role_emails: count('role'),
      catchall_emails: count('catchall'),
      disposable_emails: count('disposable'),
      risky_emails: count('risky'),
    });

    const file = await suite.call(`/v1/verify/file/${id}/results`, { key: sandboxKey, style: 'legacy' });
    expect(file.status).toBe(200);
    const table = Papa.parse<string[]>(file.text.trimEnd()).data;
    const header = table[0]!;
    const [status, reason] = [header.indexOf('status'), header.indexOf('reason')];
    expect(table.slice(1).map((r) => [r[0], r[status], r[reason]])).toEqual([
      ...SANDBOX_TRIGGERS.flatMap((t) => [
        [`${t.trigger}@${DOMAIN}`, t.status, t.reason],
        [`x+${t.trigger}@${DOMAIN}`, t.status, t.reason],
      ]),
      [`valid@${DOMAIN}`, 'valid', 'mx_found'],
      ['not an address', 'invalid', 'invalid_syntax'],
    ]);

    const [delivery] = await receiver.waitFor('/sandbox', 1);
    expect(
      verifySignatures({ secret: hook.secret, headers: delivery!.headers, rawBody: delivery!.rawBody }),
    ).toEqual({ xWebhookSignature: true, standardWebhooks: true });
    const body = JSON.parse(delivery!.body) as Json;
    expect(Object.keys(body)).toEqual(['event', 'timestamp', 'sandbox', 'data']);
    expect(body).toMatchObject({
      event: 'file.completed',
      sandbox: true,
      data: { job_id: id, credits_used: 0 },
    });
    // The signed link of the event downloads the same file, without a key.
    const direct = await fetch(body.data.direct_download_url as string);
    expect(direct.status).toBe(200);
    expect(await direct.text()).toBe(file.text);

    expect(await credits()).toMatchObject({
      credits_balance: before.credits_balance,
      credits_consumed: before.credits_consumed,
    });
    // Sandbox and live jobs stay apart: the account's live key does not find this job, in either style.
    for (const style of ['current', 'legacy'] as const) {
      const other = await suite.call(`/v1/verify/file/${id}`, { key: account.apiKey, style });
      expect(other.status).toBe(404);
      expect(other.json.error.code).toBe('JOB_NOT_FOUND');
    }
    expect((await suite.call(`/v1/verify/file/${id}/results`, { key: account.apiKey })).status).toBe(404);
    // Each key lists the jobs of its own mode only.
    const listed = async (key: string) =>
      ((await suite.call('/v1/verify/file?limit=100', { key })).json.data.jobs as Json[]).map(
        (j) => j.task_id,
      );
    expect(await listed(sandboxKey)).toContain(id);
    expect(await listed(account.apiKey)).not.toContain(id);
  });

  it('pauses, resumes and cancels a sandbox job as a live one, charging nothing', async () => {
    const before = await credits();
    const rows = Array.from({ length: 400 }, (_, i) => `jane${i}+role@${DOMAIN}`);
    const start = async () => {
      const up = await suite.upload({
        key: sandboxKey,
        file: { name: 'many.csv', content: `email\n${rows.join('\n')}\n` },
      });
      expect(up.status).toBe(200);
      return up.json.data.task_id as string;
    };
    // A job paused before it finished (on a busy machine one may finish first: another is uploaded).
    let paused = '';
    for (let attempt = 1; !paused && attempt <= 5; attempt++) {
      const id = await start();
      const res = await suite.call(`/v1/verify/file/${id}/pause`, { key: sandboxKey, method: 'POST' });
      if (res.status === 200) paused = id;
    }
    expect(paused).not.toBe('');
    expect((await suite.call(`/v1/verify/file/${paused}`, { key: sandboxKey })).json.data.status).toBe(
      'paused',
    );
    await suite.call(`/v1/verify/file/${paused}/resume`, { key: sandboxKey, method: 'POST' });
    expect(await suite.finishedJob(paused, sandboxKey)).toMatchObject({
      status: 'completed',
      role_emails: rows.length,
      credits_used: 0,
    });

    let cancelled = '';
    for (let attempt = 1; !cancelled && attempt <= 5; attempt++) {
      const id = await start();
      const res = await suite.call(`/v1/verify/file/${id}/cancel`, { key: sandboxKey, method: 'POST' });
      if (res.status === 200) cancelled = id;
    }
    expect(cancelled).not.toBe('');
    expect(await suite.finishedJob(cancelled, sandboxKey)).toMatchObject({
      status: 'cancelled',
      credits_used: 0,
    });
    expect(await credits()).toMatchObject({ credits_balance: before.credits_balance });
  });

  /** The account's usage totals today: live and sandbox verifications, summed over their statuses. */
  const usageTotals = async () => {
    const today = new Date().toISOString().slice(0, 10);
    const { totals } = await suite.bus.request(Subjects.creditsUsageGet, {
      accountId: account.accountId,
      from: today,
      to: today,
    });
    const sum = (counts: Record<string, number>) => Object.values(counts).reduce((a, b) => a + b, 0);
    return { live: sum(totals.verifications), sandbox: sum(totals.sandboxVerifications) };
  };

  it('counts sandbox verifications apart from live ones in the usage', async () => {
    // 58 singles, 40 bulk items, 39 and 400 addresses of completed jobs, and what the cancelled job got to.
    await eventually(async () => {
      const usage = await usageTotals();
      expect(usage.live).toBe(0);
      expect(usage.sandbox).toBeGreaterThanOrEqual(58 + 40 + 39 + 400);
    });
  });

  it('made no outbound connection, charged nothing, and left nothing in the live cache', async () => {
    expect({
      dns: world.dnsQueries(),
      smtp: world.smtpConnections(),
      http: world.httpRequests(),
    }).toEqual({ dns: 0, smtp: 0, http: 0 });
    expect(await verifierMetrics()).toEqual(outboundBefore);
    expect(await credits()).toMatchObject({ credits_balance: 10, credits_consumed: 0 });
    const [cached] = await suite.sql<{ n: string }>(
      `SELECT (SELECT count(*) FROM verifier.results) + (SELECT count(*) FROM verifier.domain_reports) AS n`,
    );
    expect(Number(cached!.n)).toBe(0);
  });

  it('gives a live key a live answer for an address a sandbox key asked about', async () => {
    const email = `invalid@${DOMAIN}`;
    const live = await suite.call('/v1/verify/single', { key: account.apiKey, body: { email } });
    // The world's mail host takes the domain's mail: a live verification says valid, where the sandbox said invalid.
    // Charged: verified now, not served from a cache.
    expect(live.json.data).toMatchObject({ email, status: 'valid', reason: 'mx_found', credits_used: 1 });
    expect(world.dnsQueries(DOMAIN, 'MX')).toBeGreaterThan(0);
    expect(await credits()).toMatchObject({ credits_balance: 9 });
    await eventually(async () => expect((await usageTotals()).live).toBe(1));
  });
});
