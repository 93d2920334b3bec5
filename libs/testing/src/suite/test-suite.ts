import { randomBytes } from 'node:crypto';
import {
  type AccountId,
  type AccountCreateReply,
  type ResponseStyle,
  Subjects,
  TERMINAL_JOB_STATES,
} from '@emailverify/contracts';
import { JetStreamKit, MessageBus } from '@emailverify/messaging';
import { Client } from 'pg';
import { eventually } from '../eventually';
import type { MailWorld } from '../mail-world';
import { compileCacheDir } from './compile-cache';
import {
  freePort,
  GATEWAY_NODE_FLAGS,
  holdPort,
  launch,
  type RunningProcess,
  stopProcess,
  waitUntilReady,
} from './processes';

export type ServiceName = 'credits' | 'verifier' | 'file-jobs' | 'webhooks';

const ENTRIES: Record<ServiceName | 'gateway', string> = {
  credits: 'dist/apps/credits/src/main.js',
  verifier: 'dist/apps/verifier/src/main.js',
  'file-jobs': 'dist/apps/file-jobs/src/main.js',
  webhooks: 'dist/apps/webhooks/src/main.js',
  gateway: 'dist/apps/gateway/src/main.js',
};

export interface SuiteOptions {
  services?: ServiceName[];
  /**
   * The mail world the verifiers see instead of the internet (mailWorldEnv, under `env`): the suite starts once it
   * answers, and stops it when the suite stops (or fails to start).
   */
  world?: MailWorld;
  /** How many gateway processes to start (they share Redis when `redis` is true). */
  gateways?: number;
  redis?: boolean;
  /** Extra environment for every process. */
  env?: Record<string, string>;
  /** Extra environment for one app's processes only (over `env`), e.g. its own NATS user. */
  appEnv?: Partial<Record<ServiceName | 'gateway', Record<string, string>>>;
  /** NATS of this installation (default: NATS_URL of the environment); the suite's own bus uses it too. */
  natsUrl?: string;
  /** NATS_NAMESPACE (default: one of its own), for a server configured for a namespace ahead of the suite. */
  namespace?: string;
  /**
   * PostgreSQL server of this installation (default: DATABASE_URL of the environment), e.g. a PrivatePostgres's
   * url; the suite's database is made on it.
   */
  databaseUrl?: string;
}

export interface Account {
  accountId: AccountId;
  apiKeyId: string;
  apiKey: string;
}

export interface HttpReply {
  status: number;
  headers: Headers;
  text: string;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read arbitrary reply shapes
  json: any;
}

export interface CallOptions {
  method?: string;
  key?: string;
  /** Which header carries the key (default SVC-API-KEY). */
  carrier?: 'SVC-API-KEY' | 'SERVICE-API-KEY' | 'Authorization';
  style?: ResponseStyle;
  body?: unknown;
  rawBody?: string | Uint8Array;
  headers?: Record<string, string>;
  gateway?: number;
}

/**
 * A whole installation for one test file: its own database and NATS namespace (so runs never see each
 * other's data or messages), real service processes built in dist/, and one or more gateways.
 */
export class TestSuite {
  readonly id = randomBytes(5).toString('hex');
  readonly namespace: string;
  readonly databaseUrl: string;
  readonly natsUrl: string;
  readonly redisUrl = process.env.REDIS_URL || 'redis://127.0.0.1:6379';
  /** This installation's key for webhook secrets at rest. */
  readonly webhookSecretKey = randomBytes(32).toString('hex');
  /** This installation's secret for signed download links. */
  readonly downloadSigningSecret = randomBytes(32).toString('hex');
  readonly processes = new Map<string, RunningProcess>();
  readonly gatewayPorts: number[] = [];
  /** The first gateway's port, chosen before any process starts so every service knows PUBLIC_BASE_URL. */
  private firstGatewayPort?: number;
  /** Keeps the first gateway's port bound until the gateway starts (the services are given its URL first). */
  private firstGatewayPortHold?: { port: number; release: () => Promise<void> };
  private readonly servicePorts = new Map<string, number>();
  /** Ports of stopped services, kept bound until they start again on them (see stopService). */
  private readonly stoppedPortHolds = new Map<string, () => Promise<void>>();
  bus!: MessageBus;

  private constructor(private readonly options: SuiteOptions) {
    const base = new URL(
      options.databaseUrl || process.env.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/emailverify',
    );
    base.pathname = `/ev_test_${this.id}`;
    this.databaseUrl = base.toString();
    this.natsUrl = options.natsUrl || process.env.NATS_URL || 'nats://127.0.0.1:4222';
    this.namespace = options.namespace ?? `t_${this.id}`;
  }

  static async start(options: SuiteOptions = {}): Promise<TestSuite> {
    const suite = new TestSuite(options);
    try {
      await options.world?.ready();
      suite.firstGatewayPortHold = await holdPort();
      suite.firstGatewayPort = suite.firstGatewayPortHold.port;
      suite.bus = await MessageBus.connect({
        url: suite.natsUrl,
        namespace: suite.namespace,
        name: `test-${suite.id}`,
      });
      // The services and gateways start together, as `npm start` starts them (each waits for what it needs);
      // the suite is started once every one is ready, so a test's first request finds every service ready.
      await settleAll([
        ...(options.services ?? ['credits', 'verifier', 'file-jobs', 'webhooks']).map((service) =>
          suite.startService(service),
        ),
        ...Array.from({ length: options.gateways ?? 1 }, () => suite.startGateway().then(() => undefined)),
      ]);
      return suite;
    } catch (err) {
      await suite.stop();
      throw err;
    }
  }

  env(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
    return {
      PATH: process.env.PATH,
      ...(compileCacheDir() ? { NODE_COMPILE_CACHE: compileCacheDir() } : {}),
      NODE_ENV: 'test',
      LOG_LEVEL: process.env.TEST_LOG_LEVEL || 'warn',
      DATABASE_URL: this.databaseUrl,
      NATS_URL: this.natsUrl,
      NATS_NAMESPACE: this.namespace,
      // Verification never leaves loopback in tests: a suite that does not point these at a mail world gets
      // a DNS server that does not exist and no blocklists, gravatar or RDAP.
      DNS_SERVERS: '127.0.0.1:9',
      DNS_TIMEOUT_MS: '500',
      DNSBL_IP_ZONES: '',
      DNSBL_DOMAIN_ZONES: '',
      GRAVATAR_BASE_URL: '',
      RDAP_BASE_URL: '',
      WEBHOOK_SECRET_KEY: this.webhookSecretKey,
      DOWNLOAD_SIGNING_SECRET: this.downloadSigningSecret,
      // Links in events and replies name the first gateway, as an installation's PUBLIC_BASE_URL names its own.
      ...(this.firstGatewayPort ? { PUBLIC_BASE_URL: `http://127.0.0.1:${this.firstGatewayPort}` } : {}),
      ...(this.options.redis ? { REDIS_URL: this.redisUrl } : {}),
      ...(this.options.world ? mailWorldEnv(this.options.world) : {}),
      ...this.options.env,
      ...extra,
    };
  }

  /**
   * Starts a service process; `replica` 1, 2, ... starts further processes of the same service beside the first
   * (they share its database and NATS namespace, as replicas do).
   */
  async startService(name: ServiceName, extraEnv: Record<string, string> = {}, replica = 0): Promise<void> {
    const key = replicaKey(name, replica);
    await this.stoppedPortHolds.get(key)?.();
    this.stoppedPortHolds.delete(key);
    const port = this.servicePorts.get(key) ?? (await freePort());
    this.servicePorts.set(key, port);
    const proc = launch(
      key,
      ENTRIES[name],
      this.env({ HTTP_PORT: String(port), ...this.options.appEnv?.[name], ...extraEnv }),
    );
    this.processes.set(key, proc);
    await waitUntilReady(proc, `http://127.0.0.1:${port}/health/ready`);
  }

  async stopService(name: ServiceName, signal: NodeJS.Signals = 'SIGTERM', replica = 0): Promise<void> {
    const key = replicaKey(name, replica);
    const proc = this.processes.get(key);
    if (!proc) return;
    await stopProcess(proc, signal);
    // A service started again comes back on its port; until then the port stays bound here, or a suite running
    // beside this one could be given it. Taken already: the service starts again on another.
    const port = this.servicePorts.get(key);
    if (port === undefined || this.stoppedPortHolds.has(key)) return;
    try {
      this.stoppedPortHolds.set(key, (await holdPort(port)).release);
    } catch {
      this.servicePorts.delete(key);
    }
  }

  /** Starts one more gateway process; returns its index for `call(..., { gateway })`. */
  async startGateway(extraEnv: Record<string, string> = {}): Promise<number> {
    // The index is taken at once: gateways started together get one each.
    const index = this.gatewayPorts.length;
    this.gatewayPorts.push(index === 0 && this.firstGatewayPort ? this.firstGatewayPort : 0);
    if (this.gatewayPorts[index] === 0) this.gatewayPorts[index] = await freePort();
    await this.launchGateway(index, extraEnv);
    return index;
  }

  /** Stops a gateway process: SIGTERM for an orderly stop, SIGKILL for a crash. */
  async stopGateway(index = 0, signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
    const proc = this.processes.get(`gateway${index}`);
    if (proc) await stopProcess(proc, signal);
  }

  /** Starts a stopped gateway again, on its port. */
  async restartGateway(index = 0, extraEnv: Record<string, string> = {}): Promise<void> {
    await this.launchGateway(index, extraEnv);
  }

  private async launchGateway(index: number, extraEnv: Record<string, string>): Promise<void> {
    const port = this.gatewayPorts[index]!;
    if (index === 0) await this.releaseFirstGatewayPort();
    const proc = launch(
      `gateway${index}`,
      ENTRIES.gateway,
      this.env({
        PORT: String(port),
        HOST: '127.0.0.1',
        PUBLIC_BASE_URL: `http://127.0.0.1:${port}`,
        ...this.options.appEnv?.gateway,
        ...extraEnv,
      }),
      GATEWAY_NODE_FLAGS,
    );
    this.processes.set(`gateway${index}`, proc);
    await waitUntilReady(proc, `http://127.0.0.1:${port}/health/live`);
  }

  /** Base URL of a service's own HTTP listener (/health/*, /metrics); `replica` as for startService. */
  serviceUrl(name: ServiceName, replica = 0): string {
    return `http://127.0.0.1:${this.servicePorts.get(replicaKey(name, replica))}`;
  }

  gatewayUrl(index = 0): string {
    return `http://127.0.0.1:${this.gatewayPorts[index]}`;
  }

  async createAccount(
    options: { credits?: number; style?: ResponseStyle; name?: string } = {},
  ): Promise<Account> {
    const reply: AccountCreateReply = await this.bus.request(Subjects.creditsAccountCreate, {
      name: options.name ?? 'test account',
      credits: options.credits ?? 1000,
      ...(options.style ? { style: options.style } : {}),
    });
    return { accountId: reply.accountId, apiKeyId: reply.apiKeyId, apiKey: reply.apiKey };
  }

  /** One HTTP request to a gateway, with the key in the chosen carrier. */
  async call(path: string, options: CallOptions = {}): Promise<HttpReply> {
    const headers: Record<string, string> = { ...options.headers };
    if (options.key !== undefined) {
      const carrier = options.carrier ?? 'SVC-API-KEY';
      headers[carrier] = carrier === 'Authorization' ? `Bearer ${options.key}` : options.key;
    }
    if (options.style) headers['SVC-Response-Style'] = options.style;
    let body: string | Uint8Array | undefined;
    if (options.rawBody !== undefined) body = options.rawBody;
    else if (options.body !== undefined) {
      body = JSON.stringify(options.body);
      headers['Content-Type'] ??= 'application/json';
    }
    const res = await fetch(`${this.gatewayUrl(options.gateway ?? 0)}${path}`, {
      method: options.method ?? (body === undefined ? 'GET' : 'POST'),
      headers,
      body,
      redirect: 'manual',
    });
    return readReply(res);
  }

  /** A multipart upload (POST /v1/verify/file by default), with form fields beside the file. */
  async upload(options: {
    key: string;
    file?: { name: string; content: string | Uint8Array };
    fields?: Record<string, string>;
    style?: ResponseStyle;
    path?: string;
    gateway?: number;
    headers?: Record<string, string>;
  }): Promise<HttpReply> {
    const form = new FormData();
    for (const [name, value] of Object.entries(options.fields ?? {})) form.append(name, value);
    if (options.file) form.append('file', new Blob([options.file.content]), options.file.name);
    const headers: Record<string, string> = { ...options.headers, 'SVC-API-KEY': options.key };
    if (options.style) headers['SVC-Response-Style'] = options.style;
    const res = await fetch(`${this.gatewayUrl(options.gateway ?? 0)}${options.path ?? '/v1/verify/file'}`, {
      method: 'POST',
      headers,
      body: form,
    });
    return readReply(res);
  }

  /**
   * Long-polls a file job's status until the job is terminal (`TERMINAL_JOB_STATES`) and returns the status
   * reply's data; a reply other than 200 fails at once. `timeoutMs` bounds the whole wait (by default it ends
   * within the default test timeout, so a job that never ends says so).
   */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read arbitrary reply shapes
  async finishedJob(id: string, key: string, { timeoutMs = 50_000 } = {}): Promise<any> {
    const deadline = performance.now() + timeoutMs;
    const reply = await eventually(
      async () => {
        const wait = Math.max(0, Math.min(30, Math.floor((deadline - performance.now()) / 1000)));
        const res = await this.call(`/v1/verify/file/${id}?timeout=${wait}`, { key });
        if (res.status === 200 && !TERMINAL_JOB_STATES.includes(res.json.data.status))
          throw new Error(`job ${id} is ${res.json.data.status}, not finished`);
        return res;
      },
      { timeoutMs, intervalMs: 100 },
    );
    if (reply.status !== 200)
      throw new Error(`GET /v1/verify/file/${id} answered ${reply.status}, not 200: ${reply.text}`);
    return reply.json.data;
  }

  /** Names of the objects in this installation's `files` bucket (uploads and result files). */
  async storedObjects(): Promise<string[]> {
    return (await new JetStreamKit(this.bus).objectInfos('files')).map((info) => info.name);
  }

  /**
   * How many partly stored objects the `files` bucket holds: chunks that no object refers to (a put whose
   * writer died before it finished).
   */
  async partialObjects(): Promise<number> {
    const kit = new JetStreamKit(this.bus);
    const store = await kit.objectStore('files');
    const objects = new Set((await kit.objectInfos('files')).map((info) => info.nuid));
    const { streamInfo } = await store.status({ subjects_filter: '$O.*.C.>' });
    return Object.keys(streamInfo.state.subjects ?? {}).filter(
      (subject) => !objects.has(subject.slice(subject.lastIndexOf('.') + 1)),
    ).length;
  }

  /** Every event published on this installation's EVENTS stream so far. */
  async events(): Promise<unknown[]> {
    const kit = new JetStreamKit(this.bus);
    const jsm = await kit.jsm();
    const stream = kit.streamName('EVENTS');
    const info = await jsm.streams.info(stream).catch(() => undefined);
    if (!info || info.state.messages === 0) return [];
    const events: unknown[] = [];
    for (let seq = info.state.first_seq; seq <= info.state.last_seq; seq++) {
      const msg = await jsm.streams.getMessage(stream, { seq }).catch(() => undefined);
      if (msg) events.push(msg.json());
    }
    return events;
  }

  /** Runs a query against the suite's database (for assertions on stored state). */
  async sql<T = Record<string, unknown>>(query: string, params: unknown[] = []): Promise<T[]> {
    const client = new Client({ connectionString: this.databaseUrl });
    await client.connect();
    try {
      return (await client.query(query, params)).rows as T[];
    } finally {
      await client.end();
    }
  }

  private async releaseFirstGatewayPort(): Promise<void> {
    const hold = this.firstGatewayPortHold;
    this.firstGatewayPortHold = undefined;
    await hold?.release();
  }

  /**
   * Ends the installation: its processes are killed (tests of an orderly stop stop their processes themselves),
   * its streams and database dropped, its mail world stopped.
   */
  async stop(): Promise<void> {
    await this.releaseFirstGatewayPort();
    await Promise.all([...this.stoppedPortHolds.values()].map((release) => release()));
    this.stoppedPortHolds.clear();
    await Promise.all([...this.processes.values()].map((p) => stopProcess(p, 'SIGKILL')));
    if (this.bus) {
      await new JetStreamKit(this.bus).deleteNamespaceStreams().catch(() => undefined);
      await this.bus.close();
    }
    const admin = new URL(this.databaseUrl);
    admin.pathname = '/postgres';
    const client = new Client({ connectionString: admin.toString() });
    try {
      await client.connect();
      await client.query(`DROP DATABASE IF EXISTS "ev_test_${this.id}" WITH (FORCE)`);
    } finally {
      await client.end().catch(() => undefined);
      await this.options.world?.stop();
    }
  }
}

/** Awaits every promise, then throws the first failure (so nothing is still starting when the caller cleans up). */
async function settleAll(work: Promise<void>[]): Promise<void> {
  const failed = (await Promise.allSettled(work)).find((outcome) => outcome.status === 'rejected');
  if (failed) throw failed.reason;
}

/** A reply's status, headers and body, the body also as JSON when it is JSON. */
async function readReply(res: Response): Promise<HttpReply> {
  const text = await res.text();
  let json: unknown;
  try {
    json = text ? JSON.parse(text) : undefined;
  } catch {
    json = undefined;
  }
  return { status: res.status, headers: res.headers, text, json };
}

function replicaKey(name: ServiceName, replica: number): string {
  return replica === 0 ? name : `${name}#${replica}`;
}

/**
 * What the verifier needs to work against a mail world; blocklists, gravatar and RDAP stay off (the suite's
 * defaults) unless a test points them at the world too. The world's hosts live on loopback, which the verifier
 * refuses to contact unless SMTP_ALLOW_PRIVATE_NETWORKS is set.
 */
export function mailWorldEnv(world: { dnsServers: string; smtpPort: number }): Record<string, string> {
  return {
    DNS_SERVERS: world.dnsServers,
    SMTP_PORT: String(world.smtpPort),
    SMTP_ALLOW_PRIVATE_NETWORKS: 'true',
  };
}
