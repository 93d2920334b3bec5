import 'reflect-metadata';
import { createHash } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import { type DynamicModule, type INestApplication, Module, type Type } from '@nestjs/common';
import {
  type AccountId,
  DomainError,
  type ResolvedKey,
  type ResponseStyle,
  type RpcReply,
  type RpcRequest,
  type RpcSubject,
  Subjects,
} from '@emailverify/contracts';
import { JetStreamKit, MessageBus } from '@emailverify/messaging';
import {
  HEALTH_CHECKS,
  LOGGER,
  Metrics,
  ObservabilityModule,
  SHUTDOWN_HOOKS,
} from '@emailverify/service-kit';
import type { HttpReply } from '@emailverify/testing';
import pino from 'pino';
import { gatewayApi } from '../app.module';
import { createGatewayApp } from '../bootstrap';
import { GATEWAY_CONFIG, type GatewayConfig, gatewayConfig } from '../config';

// The gateway's HTTP layer in-process, for controller, guard and filter specs: the production pipeline, API
// and app set-up (gatewayApi, createGatewayApp) with stand-ins for NATS and JetStream behind it. No process
// starts; each spec talks HTTP to it over loopback and sees exactly what a client would.

type Answer = (payload: never) => unknown;

/** Answers bus requests from per-subject functions and records what the gateway asked. */
export class StandInBus {
  /** Every request except API-key lookups, in order. */
  readonly asked: Array<{ subject: string; payload: unknown; requestId?: string }> = [];
  /** How often the gateway asked the credits service to resolve a key. */
  authLookups = 0;
  /** Runs when a request arrives, before it is answered (what happens elsewhere while a request is in flight). */
  whileAsked: ((subject: string, payload: unknown) => void) | undefined;
  private readonly answers = new Map<string, Answer>();
  private readonly listeners = new Map<string, Set<(payload: unknown) => void>>();

  /** How `subject` is answered from now on: a reply, or a thrown DomainError (which travels as itself). */
  answer<S extends RpcSubject>(
    subject: S,
    fn: (request: RpcRequest<S>) => RpcReply<S> | Promise<RpcReply<S>>,
  ): void {
    this.answers.set(subject, fn as Answer);
  }

  async request(subject: string, payload: unknown, options: { requestId?: string } = {}): Promise<unknown> {
    if (subject === Subjects.creditsAuthResolve) this.authLookups += 1;
    else this.asked.push({ subject, payload, requestId: options.requestId });
    this.whileAsked?.(subject, payload);
    const fn = this.answers.get(subject);
    if (!fn) throw new DomainError('SERVICE_UNAVAILABLE', `Nothing answers ${subject}`);
    // Replies travel as JSON, as on the real bus.
    return JSON.parse(JSON.stringify(await fn(payload as never))) as unknown;
  }

  onBroadcast<T>(subject: string, handler: (payload: T) => void): { unsubscribe(): void } {
    const set = this.listeners.get(subject) ?? new Set();
    this.listeners.set(subject, set);
    const listener = handler as (payload: unknown) => void;
    set.add(listener);
    return { unsubscribe: () => void set.delete(listener) };
  }

  /** Delivers a broadcast to every subscriber, as JSON like the real bus. */
  broadcast(subject: string, payload: unknown): void {
    for (const listener of this.listeners.get(subject) ?? []) listener(JSON.parse(JSON.stringify(payload)));
  }

  isConnected(): boolean {
    return true;
  }

  async close(): Promise<void> {}
}

/** The `files` bucket in memory: what uploads store and result downloads read. */
export class StandInObjectStore {
  readonly objects = new Map<string, Buffer>();
  /** When true, reading an object fails after it was found (a store that breaks mid-download). */
  failReads = false;

  async get(name: string): Promise<{ data: ReadableStream<Uint8Array> } | null> {
    const bytes = this.objects.get(name);
    if (!bytes) return null;
    if (this.failReads)
      return {
        data: new ReadableStream<Uint8Array>({
          pull: (controller) => controller.error(new Error('object store read failed')),
        }),
      };
    return { data: Readable.toWeb(Readable.from([bytes])) as ReadableStream<Uint8Array> };
  }

  async put(name: string, data: ReadableStream<Uint8Array>): Promise<{ size: number }> {
    const chunks: Buffer[] = [];
    for await (const chunk of Readable.fromWeb(data as import('node:stream/web').ReadableStream)) {
      chunks.push(Buffer.from(chunk as Uint8Array));
    }
    const bytes = Buffer.concat(chunks);
    this.objects.set(name, bytes);
    return { size: bytes.length };
  }

  async delete(name: string): Promise<boolean> {
    return this.objects.delete(name);
  }
}

/** The part of JetStreamKit the gateway uses, over one in-memory bucket. */
export class StandInJetStream {
  readonly store = new StandInObjectStore();

  async objectStore(_bucket: string): Promise<StandInObjectStore> {
    return this.store;
  }

  async bucketBytes(_bucket: string): Promise<number> {
    let bytes = 0;
    for (const data of this.store.objects.values()) bytes += data.length;
    return bytes;
  }

  putObject(store: StandInObjectStore, name: string, data: ReadableStream<Uint8Array>) {
    return store.put(name, data);
  }

  getObject(_bucket: string, name: string): Promise<{ data: ReadableStream<Uint8Array> } | null> {
    return this.store.get(name);
  }
}

export const ACCOUNT = '6f1c2b1e-6a1d-4c57-9a43-2d1f1f3b9a10' as AccountId;
/** Keys every harness resolves: one per style, of the same account. */
export const KEYS = {
  current: 'ev_current-key',
  legacy: 'ev_legacy-key',
} as const satisfies Record<ResponseStyle, string>;

/** A reply as the end-to-end suites see one. */
export type Reply = HttpReply;

export interface CallOptions {
  method?: string;
  /** SVC-Response-Style header. */
  style?: ResponseStyle;
  /** The API key (SVC-API-KEY); `null` sends none. Default: the current-style key. */
  key?: string | null;
  headers?: Record<string, string>;
  /** Sent as JSON. */
  body?: unknown;
  /** Sent as it is, with Content-Type application/json. */
  rawBody?: string;
  /** Sent as multipart/form-data. */
  form?: FormData;
}

export interface HarnessOptions {
  /** Variables on top of the test defaults (e.g. a low RATE_LIMIT_OTHER). */
  env?: Record<string, string>;
  /** Controllers beside the API's (probe routes of guard and filter specs). */
  controllers?: Type[];
}

@Module({})
class GatewayHarnessModule {}

/** A running in-process gateway with its stand-ins. */
export class GatewayHarness {
  /** Lines the gateway logged at warn or above, parsed. */
  readonly logs: Array<Record<string, unknown>> = [];
  private readonly keys = new Map<string, ResolvedKey>();
  private keyCount = 0;

  private constructor(
    readonly config: Readonly<GatewayConfig>,
    readonly bus: StandInBus,
    readonly jetStream: StandInJetStream,
    private app?: INestApplication,
    private base = '',
  ) {
    this.keys.set(hashOf(KEYS.current), resolvedKey('key-current', 'default', 'current'));
    this.keys.set(hashOf(KEYS.legacy), resolvedKey('key-legacy', 'old client', 'legacy'));
    bus.answer(Subjects.creditsAuthResolve, ({ keyHash }) => {
      const key = this.keys.get(keyHash);
      return key ? { found: true, key } : { found: false };
    });
  }

  static async start(options: HarnessOptions = {}): Promise<GatewayHarness> {
    const config = gatewayConfig.load({
      NODE_ENV: 'test',
      LOG_LEVEL: 'silent',
      NATS_NAMESPACE: 'unit',
      DOWNLOAD_SIGNING_SECRET: 'gateway-harness-download-secret',
      ...options.env,
    });
    const harness = new GatewayHarness(config, new StandInBus(), new StandInJetStream());
    const logger = pino(
      { level: 'warn', base: { service: 'gateway' } },
      {
        write: (line: string) => void harness.logs.push(JSON.parse(line) as Record<string, unknown>),
      },
    );
    const api = gatewayApi(config);
    const module: DynamicModule = {
      module: GatewayHarnessModule,
      imports: [
        ...api.imports,
        ObservabilityModule.forRoot({
          providers: [
            { provide: MessageBus, useValue: harness.bus },
            { provide: JetStreamKit, useValue: harness.jetStream },
            { provide: LOGGER, useValue: logger },
            { provide: Metrics, useValue: new Metrics('gateway') },
            { provide: GATEWAY_CONFIG, useValue: config },
            { provide: HEALTH_CHECKS, useValue: [] },
            { provide: SHUTDOWN_HOOKS, useValue: [] },
          ],
        }),
      ],
      controllers: [...api.controllers, ...(options.controllers ?? [])],
      providers: api.providers,
    };
    const app = await createGatewayApp(config, module);
    await app.listen(0, '127.0.0.1');
    harness.app = app;
    harness.base = `http://127.0.0.1:${(app.getHttpServer().address() as AddressInfo).port}`;
    return harness;
  }

  /** A fresh key of its own (own rate-limit counters), resolving to the usual account; live and full unless said. */
  newKey(
    style: ResponseStyle = 'current',
    kind: Partial<Pick<ResolvedKey, 'mode' | 'scope'>> = {},
  ): { key: string; apiKeyId: string } {
    this.keyCount += 1;
    const key = `ev_fresh-${this.keyCount}`;
    const apiKeyId = `key-fresh-${this.keyCount}`;
    this.keys.set(hashOf(key), { ...resolvedKey(apiKeyId, `fresh ${this.keyCount}`, style), ...kind });
    return { key, apiKeyId };
  }

  /** Forgets what was asked and answered (API-key lookups stay answered). */
  reset(): void {
    this.bus.asked.length = 0;
    this.bus.authLookups = 0;
    this.bus.whileAsked = undefined;
  }

  url(path: string): string {
    return `${this.base}${path}`;
  }

  async call(path: string, options: CallOptions = {}): Promise<Reply> {
    const headers: Record<string, string> = {};
    const key = options.key === undefined ? KEYS.current : options.key;
    if (key !== null) headers['SVC-API-KEY'] = key;
    if (options.style) headers['SVC-Response-Style'] = options.style;
    let body: string | FormData | undefined = options.rawBody;
    if (options.body !== undefined) body = JSON.stringify(options.body);
    if (body !== undefined) headers['Content-Type'] = 'application/json';
    if (options.form) body = options.form;
    Object.assign(headers, options.headers);
    const res = await fetch(this.url(path), {
      method: options.method ?? (body === undefined ? 'GET' : 'POST'),
      headers,
      body,
      redirect: 'manual',
    });
    const text = await res.text();
    const isJson = /json/.test(res.headers.get('content-type') ?? '');
    return {
      status: res.status,
      headers: res.headers,
      text,
      json: isJson && text ? JSON.parse(text) : undefined,
    };
  }

  async close(): Promise<void> {
    await this.app?.close();
  }
}

const hashOf = (key: string) => createHash('sha256').update(key, 'utf8').digest('hex');

function resolvedKey(apiKeyId: string, apiKeyName: string, style: ResponseStyle): ResolvedKey {
  return { accountId: ACCOUNT, apiKeyId, apiKeyName, style, plan: 'payg', mode: 'live', scope: 'full' };
}
