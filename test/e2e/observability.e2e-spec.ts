import { randomUUID } from 'node:crypto';
import { type Account, eventually, MailWorld, TestSuite, WebhookReceiver } from '@emailverify/testing';
import { collectDefaultMetrics, Registry } from 'prom-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { alertRuleQueries, dashboardQueries, metricNames } from '../deploy/observability-queries';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- log lines are read field by field
type LogLine = Record<string, any>;

const APPS = ['gateway', 'credits', 'verifier', 'file-jobs', 'webhooks'] as const;
type App = (typeof APPS)[number];

/** The default Node.js and process metrics of prom-client, which keep their standard names. */
async function defaultMetricNames(): Promise<Set<string>> {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  return new Set((await registry.getMetricsAsJSON()).map((m) => m.name));
}

interface Exposition {
  /** Family name -> type, from the `# TYPE` lines. */
  families: Map<string, string>;
  /** Sample lines by series name (`x_bucket`, `x_count`, ...), with labels and value. */
  samples: Array<{ name: string; labels: string; value: number }>;
}

function parseExposition(text: string): Exposition {
  const families = new Map<string, string>();
  const samples: Exposition['samples'] = [];
  for (const line of text.split('\n')) {
    const type = /^# TYPE (\S+) (\S+)$/.exec(line);
    if (type) families.set(type[1]!, type[2]!);
    if (!line || line.startsWith('#')) continue;
    const sample = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{.*\})? (\S+)/.exec(line);
    if (sample) samples.push({ name: sample[1]!, labels: sample[2] ?? '', value: Number(sample[3]) });
  }
  return { families, samples };
}

/** The series names a family exports (histograms: _bucket, _sum, _count). */
function seriesOf(name: string, type: string): string[] {
  if (type === 'histogram') return [`${name}_bucket`, `${name}_sum`, `${name}_count`];
  if (type === 'summary') return [name, `${name}_sum`, `${name}_count`];
  return [name];
}

/** The value of one series whose labels include every `label="value"` given (0 when there is none). */
function valueOf(exposition: Exposition, name: string, labels: Record<string, string> = {}): number {
  return exposition.samples
    .filter(
      (s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels.includes(`${k}="${v}"`)),
    )
    .reduce((sum, s) => sum + s.value, 0);
}

describe('observability: metrics on every app, the request id on every hop', () => {
  let world: MailWorld;
  let receiver: WebhookReceiver;
  let suite: TestSuite;
  let account: Account;
  const singleId = randomUUID();
  const bulkId = randomUUID();
  const fileId = randomUUID();
  const addresses = ['jane@obs.test', 'bob@obs.test', 'nobody@obs.test', 'ann@obs.test', 'x@nx-obs.test'];
  let jobId: string;
  let bulkCredits: number;
  let directDownloadUrl: string;

  beforeAll(async () => {
    world = await MailWorld.start();
    world
      .domain('obs.test', {
        mx: [{ priority: 10, host: 'mx.obs.test', smtp: { mailboxes: ['jane', 'bob', 'ann'] } }],
      })
      .domain('nx-obs.test', { nxdomain: true });
    receiver = await WebhookReceiver.start();
    suite = await TestSuite.start({
      world,
      env: {
        // Every line of the work, not only warnings.
        LOG_LEVEL: 'info',
        NODE_EXTRA_CA_CERTS: receiver.caFile,
        WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
        WEBHOOK_POLL_INTERVAL_MS: '100',
        // Two addresses a chunk: the job has three chunks, so a line per chunk differs from a line per address.
        FILE_CHUNK_SIZE: '2',
      },
    });
    account = await suite.createAccount({ credits: 1000 });

    // The work whose traces the tests read: one single verification, one file job with a webhook.
    const single = await suite.call('/v1/verify/single', {
      key: account.apiKey,
      body: { email: 'jane@obs.test', check_smtp: true },
      headers: { 'X-Request-Id': singleId },
    });
    expect(single.status).toBe(200);
    expect(single.headers.get('x-request-id')).toBe(singleId);
    const bulk = await suite.call('/v1/verify/bulk', {
      key: account.apiKey,
      body: { emails: ['bob@obs.test', 'ann@obs.test'], check_smtp: true },
      headers: { 'X-Request-Id': bulkId },
    });
    expect(bulk.status).toBe(200);
    bulkCredits = bulk.json.data.credits_used;

    const hook = await suite.call('/v1/webhooks', {
      key: account.apiKey,
      body: { url: receiver.url('/hook'), events: ['file.completed'] },
    });
    expect(hook.status).toBe(200);
    const up = await suite.upload({
      key: account.apiKey,
      file: { name: 'obs.csv', content: `email\n${addresses.join('\n')}\n` },
      fields: { check_smtp: 'true' },
      headers: { 'X-Request-Id': fileId },
    });
    expect(up.status).toBe(200);
    jobId = up.json.data.task_id;
    expect((await suite.finishedJob(jobId, account.apiKey)).status).toBe('completed');
    const [delivery] = await receiver.waitFor('/hook', 1);
    directDownloadUrl = JSON.parse(delivery!.rawBody.toString()).data.direct_download_url;
  });
  afterAll(async () => {
    await suite?.stop();
    await receiver?.stop();
  });

  const processOf = (app: App) => (app === 'gateway' ? 'gateway0' : app);
  const rawLog = (app: App) => suite.processes.get(processOf(app))!.output.join('');
  const linesOf = (app: App): LogLine[] =>
    rawLog(app)
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as LogLine);
  /** Lines of the request: `requestId` on service lines, `req.id` on the gateway's access lines. */
  const linesFor = (app: App, requestId: string) =>
    linesOf(app).filter((l) => l.requestId === requestId || l.req?.id === requestId);
  const metricsOf = async (app: App): Promise<Exposition> => {
    const base = app === 'gateway' ? suite.gatewayUrl() : suite.serviceUrl(app);
    const res = await fetch(`${base}/metrics`);
    expect(res.status).toBe(200);
    return parseExposition(await res.text());
  };

  it("single verification: the request's id is on the gateway's, verifier's and credits' lines for it", async () => {
    await eventually(() => {
      expect(linesFor('gateway', singleId).map((l) => l.req?.path)).toContain('/v1/verify/single');
      expect(linesFor('verifier', singleId).map((l) => l.subject)).toContain('verifier.address.verify');
      // The verifier's reserve and settle (used in full: close-used), each alone in its batch, answered by
      // credits, carry the gateway's id.
      expect(linesFor('credits', singleId).map((l) => l.subject)).toEqual(
        expect.arrayContaining([
          'credits.auth.resolve',
          'credits.reservations.create',
          'credits.reservation.close',
        ]),
      );
    });
    // A bulk verification likewise.
    await eventually(() => {
      expect(linesFor('verifier', bulkId).map((l) => l.subject)).toContain('verifier.batch.verify');
      expect(linesFor('credits', bulkId).map((l) => l.subject)).toEqual(
        expect.arrayContaining(['credits.reservations.create', 'credits.reservation.close']),
      );
    });
    // Nothing else was asked under it: every line about it is this request's own.
    for (const app of ['file-jobs', 'webhooks'] as const) expect(linesFor(app, singleId)).toEqual([]);
  });

  it("file job: the upload's id is on file-jobs' and verifier's lines, one per chunk, and on the webhook's", async () => {
    await eventually(() => {
      const files = linesFor('file-jobs', fileId);
      expect(files.map((l) => l.subject)).toContain('file-jobs.job.create');
      const applied = files.filter((l) => l.msg === 'chunk result applied');
      expect(applied.map((l) => l.chunk).sort()).toEqual([0, 1, 2]);
      expect(applied.every((l) => l.jobId === jobId)).toBe(true);
      expect(files.filter((l) => l.msg === 'job ended')).toEqual([
        expect.objectContaining({ jobId, status: 'completed' }),
      ]);

      const chunks = linesFor('verifier', fileId).filter((l) => l.msg === 'chunk verified');
      // One line per chunk (three chunks of five addresses), never one per address.
      expect(chunks.map((l) => l.chunk).sort()).toEqual([0, 1, 2]);
      expect(chunks.every((l) => l.jobId === jobId && typeof l.addresses === 'number')).toBe(true);
      expect(chunks.reduce((n, l) => n + (l.addresses as number), 0)).toBe(addresses.length);

      // Job creation's reservation and the settlement at the end, on credits.
      expect(linesFor('credits', fileId).map((l) => l.subject)).toEqual(
        expect.arrayContaining(['credits.reservation.create', 'credits.reservation.settle']),
      );
      // The event and its delivery.
      const hooks = linesFor('webhooks', fileId).map((l) => l.msg);
      expect(hooks).toEqual(expect.arrayContaining(['deliveries made', 'webhook attempt']));
    });
  });

  it("a signed download, which needs no key, still sends its request's id to file-jobs", async () => {
    const downloadId = randomUUID();
    const res = await fetch(directDownloadUrl, { headers: { 'X-Request-Id': downloadId } });
    expect(res.status).toBe(200);
    await res.text();
    await eventually(() =>
      expect(linesFor('file-jobs', downloadId).map((l) => l.subject)).toContain('file-jobs.job.locate'),
    );
  });

  it('logs hold no API key, signed link or address', () => {
    const logs = APPS.map(rawLog).join('\n');
    expect(logs.length).toBeGreaterThan(0);
    expect(logs).not.toContain(account.apiKey);
    const signature = new URL(directDownloadUrl).searchParams;
    for (const value of signature.values()) if (value.length >= 32) expect(logs).not.toContain(value);
    for (const address of [...addresses, 'jane@obs.test']) expect(logs).not.toContain(address);
  });

  it('/metrics of every app: only emailverify_ application metrics, and each declared one has samples', async () => {
    const defaults = await defaultMetricNames();
    for (const app of APPS) {
      const exposition = await metricsOf(app);
      const own = [...exposition.families].filter(([name]) => !defaults.has(name));
      expect(own.length, app).toBeGreaterThan(2);
      for (const [name, type] of own) {
        expect(name, `${app} exports ${name}`).toMatch(/^emailverify_[a-z0-9_]+$/);
        const series = seriesOf(name, type);
        expect(
          exposition.samples.some((s) => series.includes(s.name)),
          `${app} declares ${name} but has no sample of it`,
        ).toBe(true);
      }
    }
  });

  it('records what operators watch: NATS latency by subject, SMTP and DNS, lag, credits, jobs, webhooks', async () => {
    const gateway = await metricsOf('gateway');
    expect(
      valueOf(gateway, 'emailverify_nats_request_seconds_count', {
        subject: 'verifier.address.verify',
        outcome: 'ok',
      }),
    ).toBeGreaterThanOrEqual(1);
    expect(
      valueOf(gateway, 'emailverify_http_request_seconds_count', {
        route: '/v1/verify/single',
        status: '200',
      }),
    ).toBeGreaterThanOrEqual(1);

    const verifier = await metricsOf('verifier');
    // The single and the bulk verification each reserved once and, every credit used, settled with close-used
    // (file chunks reserve nothing).
    for (const subject of ['credits.reservations.create', 'credits.reservation.close'])
      expect(valueOf(verifier, 'emailverify_nats_request_seconds_count', { subject, outcome: 'ok' })).toBe(2);
    expect(
      valueOf(verifier, 'emailverify_nats_handled_seconds_count', { subject: 'verifier.address.verify' }),
    ).toBe(1);
    // jane (single), bob and ann (bulk), then nobody in the file: one probe each (the file's other addresses
    // may come from the cache).
    expect(
      valueOf(verifier, 'emailverify_smtp_probe_seconds_count', { outcome: 'accepted' }),
    ).toBeGreaterThanOrEqual(3);
    expect(
      valueOf(verifier, 'emailverify_smtp_probe_seconds_count', {
        outcome: 'rejected',
        reason: 'mailbox_not_found',
      }),
    ).toBe(1);
    expect(
      valueOf(verifier, 'emailverify_dns_query_seconds_count', { type: 'mx', outcome: 'nxdomain' }),
    ).toBe(1);
    expect(
      valueOf(verifier, 'emailverify_dns_query_seconds_count', { type: 'mx', outcome: 'ok' }),
    ).toBeGreaterThanOrEqual(1);
    expect(valueOf(verifier, 'emailverify_file_chunk_seconds_count', { outcome: 'verified' })).toBe(3);
    // What the addresses verified came to, each counted once under its status and reason: jane, bob and ann
    // accepted (again in the file unless cached by then), nobody rejected, the domain that does not exist.
    const outcome = (status: string, reason: string) =>
      valueOf(verifier, 'emailverify_verification_outcomes_total', { status, reason });
    expect(outcome('valid', 'accepted')).toBeGreaterThanOrEqual(3);
    expect(outcome('valid', 'accepted')).toBeLessThanOrEqual(6);
    expect(outcome('invalid', 'mailbox_not_found')).toBe(1);
    expect(outcome('invalid', 'domain_not_found')).toBe(1);
    // Addresses are never labels.
    expect(verifier.samples.some((s) => /obs\.test/.test(s.labels))).toBe(false);

    const credits = await metricsOf('credits');
    // Credits consumed at reservation, less what settlements gave back: what each piece of work was charged.
    const charged = (source: string) =>
      valueOf(credits, 'emailverify_credits_consumed_total', { source }) -
      valueOf(credits, 'emailverify_credits_refunded_total', { source });
    expect(charged('single')).toBe(1);
    expect(bulkCredits).toBe(2);
    expect(charged('bulk')).toBe(bulkCredits);
    const job = (await suite.call(`/v1/verify/file/${jobId}`, { key: account.apiKey })).json.data;
    expect(charged('file')).toBe(job.credits_used);
    expect(job.credits_used).toBeGreaterThan(0);
    // The file job reserved every address up front and gave back what it did not use.
    expect(valueOf(credits, 'emailverify_credits_consumed_total', { source: 'file' })).toBeGreaterThanOrEqual(
      job.credits_used,
    );
    // The metrics and the account's own figure move together: this account did all of the work.
    const balance = (await suite.call('/v1/credits', { key: account.apiKey })).json.data;
    expect(balance.credits_consumed).toBe(charged('single') + charged('bulk') + charged('file'));

    const fileJobs = await metricsOf('file-jobs');
    expect(valueOf(fileJobs, 'emailverify_file_jobs_ended_total', { status: 'completed' })).toBe(1);
    expect(valueOf(fileJobs, 'emailverify_file_chunk_results_total', { outcome: 'verified' })).toBe(3);

    const webhooks = await metricsOf('webhooks');
    expect(valueOf(webhooks, 'emailverify_webhook_attempts_total', { outcome: 'success' })).toBe(1);
    expect(valueOf(webhooks, 'emailverify_webhook_attempt_seconds_count', { outcome: 'success' })).toBe(1);

    // Consumer lag, sampled from consumer info: each consumer reported by the process that works it, drained.
    for (const [app, stream, consumer] of [
      ['verifier', 'VERIFY_CHUNKS', 'verifier-chunks'],
      ['file-jobs', 'CHUNK_RESULTS', 'file-jobs-chunk-results'],
      ['webhooks', 'EVENTS', 'webhooks-events'],
    ] as const) {
      await eventually(
        async () => {
          const exposition = await metricsOf(app);
          const labels = { stream, consumer };
          expect(
            exposition.samples.some(
              (s) =>
                s.name === 'emailverify_jetstream_consumer_pending_messages' &&
                s.labels.includes(`stream="${stream}"`),
            ),
          ).toBe(true);
          expect(valueOf(exposition, 'emailverify_jetstream_consumer_pending_messages', labels)).toBe(0);
          expect(valueOf(exposition, 'emailverify_jetstream_consumer_ack_pending_messages', labels)).toBe(0);
        },
        { timeoutMs: 30_000, intervalMs: 500 },
      );
    }
  });

  it("the dashboard's and alert rules' queries name only metrics the apps export, and chart every one", async () => {
    const exported = new Set<string>();
    const families = new Set<string>();
    for (const app of APPS) {
      for (const [name, type] of (await metricsOf(app)).families) {
        families.add(name);
        for (const series of seriesOf(name, type)) exported.add(series);
      }
    }
    const named = new Set<string>();
    for (const { where, expr } of [...dashboardQueries(), ...alertRuleQueries()]) {
      for (const name of metricNames(expr)) {
        expect(exported.has(name), `${where} queries ${name}, which no app exports`).toBe(true);
        named.add(name);
      }
    }
    // Every suite metric is on the dashboard or in an alert.
    const charted = (family: string) => [...named].some((n) => n === family || n.startsWith(`${family}_`));
    const uncharted = [...families].filter((f) => f.startsWith('emailverify_') && !charted(f));
    expect(uncharted).toEqual([]);
  });
});
