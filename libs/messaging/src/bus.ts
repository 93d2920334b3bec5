import { randomUUID } from 'node:crypto';
import {
  DomainError,
  Headers as HeaderNames,
  type RpcEnvelope,
  type RpcReply,
  type RpcRequest,
  type RpcSubject,
} from '@emailverify/contracts';
import {
  connect,
  headers,
  type Msg,
  type MsgHdrs,
  type NatsConnection,
  type Subscription,
} from '@nats-io/transport-node';
import { fromErrorBody, requestFailure } from './rpc-errors';
import { Namespace } from './namespace';
import { currentRequestId, withRequestId } from './request-context';

export interface BusOptions {
  /**
   * One or more server URLs, comma-separated. A URL may carry credentials (`nats://user:password@host:4222`,
   * URL-encoded); `user` and `pass` win over them.
   */
  url: string;
  /** NATS user and password (a server that requires authentication; one user per service). */
  user?: string;
  pass?: string;
  namespace: string;
  /** Connection name shown by the NATS server (service and process). */
  name: string;
  /** Default deadline of a request, in milliseconds. */
  requestTimeoutMs?: number;
  /**
   * Replicas of every stream, consumer and object-store bucket this installation creates: 1 on a single NATS
   * server, 3 on a JetStream cluster (so queued work survives the loss of a node).
   */
  streamReplicas?: number;
  /**
   * Told the latency of every request this connection makes: its subject (without the namespace), `ok` or the
   * error code it ended with, and seconds from sending to the reply (metrics).
   */
  onRequestDone?: (subject: string, outcome: string, seconds: number) => void;
}

export interface MessageContext {
  requestId: string;
  subject: string;
}

export type RpcHandler<S extends RpcSubject> = (
  request: RpcRequest<S>,
  ctx: MessageContext,
) => Promise<RpcReply<S>>;

export interface ServeOptions<S extends RpcSubject> {
  /** Queue group (the service's name): replicas share requests. */
  queue: string;
  /** Validates the payload on receipt; throws DomainError('INVALID_REQUEST') when it does not fit. */
  parse: (payload: unknown) => RpcRequest<S>;
  handler: RpcHandler<S>;
  /** Called with unexpected (non-domain) errors, which the caller only sees as INTERNAL_ERROR with an id. */
  onError?: (err: unknown, ctx: MessageContext & { errorId: string }) => void;
  /** Called after each message with the outcome, for logs and metrics. */
  onDone?: (ctx: MessageContext, outcome: { ok: boolean; code?: string; ms: number }) => void;
}

/**
 * Splits a comma-separated NATS_URL into server addresses without credentials (the client ignores them in a
 * URL, and its errors then name only host and port), and the first user and password found in them.
 */
export function parseServers(url: string): { servers: string[]; user?: string; pass?: string } {
  let user: string | undefined;
  let pass: string | undefined;
  const servers = url
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)
    .map((server) => {
      const match = /^([a-z]+:\/\/)([^@/]*)@(.*)$/i.exec(server);
      if (!match) return server;
      const [, scheme, credentials, rest] = match;
      if (user === undefined && credentials) {
        const colon = credentials.indexOf(':');
        user = decodeURIComponent(colon < 0 ? credentials : credentials.slice(0, colon));
        pass = colon < 0 ? '' : decodeURIComponent(credentials.slice(colon + 1));
      }
      return `${scheme}${rest}`;
    });
  return { servers, user, pass };
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();

export function encodeJson(value: unknown): Uint8Array {
  return encoder.encode(JSON.stringify(value));
}

export function decodeJson(data: Uint8Array): unknown {
  return JSON.parse(decoder.decode(data));
}

/** NATS headers naming the request a message belongs to: `requestId`, the work in progress's, or a new one. */
export function requestHeaders(requestId?: string): MsgHdrs {
  const hdrs = headers();
  hdrs.set(HeaderNames.requestId, requestId ?? currentRequestId() ?? randomUUID());
  return hdrs;
}

/** The request id a received message carries, when it carries one. */
export function requestIdOf(msg: { headers?: MsgHdrs }): string | undefined {
  return msg.headers?.get(HeaderNames.requestId) || undefined;
}

/**
 * The suite's NATS connection: namespaced request/reply with deadlines and typed errors, queue-group
 * handlers, broadcasts, and access to JetStream for the services that need it.
 */
export class MessageBus {
  private readonly subscriptions: Subscription[] = [];
  private readonly inFlight = new Set<Promise<unknown>>();

  private constructor(
    readonly connection: NatsConnection,
    readonly ns: Namespace,
    private readonly requestTimeoutMs: number,
    /** See BusOptions.streamReplicas. */
    readonly streamReplicas: number,
    private readonly onRequestDone?: BusOptions['onRequestDone'],
  ) {}

  static async connect(options: BusOptions): Promise<MessageBus> {
    const ns = new Namespace(options.namespace);
    const { servers, user, pass } = parseServers(options.url);
    const login = options.user
      ? { user: options.user, pass: options.pass ?? '' }
      : user
        ? { user, pass }
        : {};
    const connection = await connect({
      servers,
      ...login,
      // Replies come to an inbox under the user's name, so a server can let each user read its own replies only.
      ...(login.user ? { inboxPrefix: `_INBOX.${login.user.replace(/[^A-Za-z0-9_-]/g, '_')}` } : {}),
      name: options.name,
      maxReconnectAttempts: -1,
      reconnectTimeWait: 500,
      pingInterval: 10_000,
      // Without it the client builds two error objects with stack traces for every request, in case it fails:
      // about a tenth of a busy verifier's CPU. A failure still comes back with its own error and cause.
      noAsyncTraces: true,
    });
    return new MessageBus(
      connection,
      ns,
      options.requestTimeoutMs ?? 5_000,
      options.streamReplicas ?? 1,
      options.onRequestDone,
    );
  }

  /**
   * Sends a request and waits for the reply, at most `timeoutMs`; failures come back as DomainError. It carries
   * the request id given, else the one of the work in progress (withRequestId), else a new one.
   */
  async request<S extends RpcSubject>(
    subject: S,
    payload: RpcRequest<S>,
    options: { requestId?: string; timeoutMs?: number } = {},
  ): Promise<RpcReply<S>> {
    const started = performance.now();
    let outcome = 'ok';
    try {
      return await this.exchange(subject, payload, options);
    } catch (err) {
      outcome = err instanceof DomainError ? err.code : 'INTERNAL_ERROR';
      throw err;
    } finally {
      this.onRequestDone?.(subject, outcome, (performance.now() - started) / 1000);
    }
  }

  private async exchange<S extends RpcSubject>(
    subject: S,
    payload: RpcRequest<S>,
    options: { requestId?: string; timeoutMs?: number },
  ): Promise<RpcReply<S>> {
    const timeout = options.timeoutMs ?? this.requestTimeoutMs;
    let msg: Msg;
    try {
      msg = await this.connection.request(this.ns.subject(subject), encodeJson(payload), {
        timeout,
        headers: requestHeaders(options.requestId),
      });
    } catch (err) {
      throw requestFailure(subject, timeout, err);
    }
    const envelope = decodeJson(msg.data) as RpcEnvelope<RpcReply<S>>;
    if (envelope.ok) return envelope.data;
    throw fromErrorBody(envelope.error);
  }

  /** Answers requests on `subject` within the service's queue group. */
  serve<S extends RpcSubject>(subject: S, options: ServeOptions<S>): Subscription {
    const sub = this.connection.subscribe(this.ns.subject(subject), {
      queue: this.ns.queue(options.queue),
      callback: (err, msg) => {
        if (err) return;
        const work = this.answer(subject, msg, options).finally(() => this.inFlight.delete(work));
        this.inFlight.add(work);
      },
    });
    this.subscriptions.push(sub);
    return sub;
  }

  private async answer<S extends RpcSubject>(subject: S, msg: Msg, options: ServeOptions<S>): Promise<void> {
    const started = performance.now();
    const ctx: MessageContext = {
      subject,
      requestId: requestIdOf(msg) ?? randomUUID(),
    };
    let envelope: RpcEnvelope<RpcReply<S>>;
    try {
      let raw: unknown;
      try {
        raw = decodeJson(msg.data);
      } catch {
        throw new DomainError('INVALID_REQUEST', `The ${subject} message is not valid JSON`);
      }
      const request = options.parse(raw);
      const data = await withRequestId(ctx.requestId, () => options.handler(request, ctx));
      envelope = { ok: true, data };
    } catch (err) {
      if (err instanceof DomainError) {
        envelope = { ok: false, error: err.toBody() };
      } else {
        const errorId = randomUUID();
        options.onError?.(err, { ...ctx, errorId });
        envelope = {
          ok: false,
          error: { code: 'INTERNAL_ERROR', message: `Internal error (id ${errorId})` },
        };
      }
    }
    // The reply names its request too, so a caller can match what it got to the lines it caused.
    if (msg.reply) msg.respond(encodeJson(envelope), { headers: requestHeaders(ctx.requestId) });
    options.onDone?.(ctx, {
      ok: envelope.ok,
      code: envelope.ok ? undefined : envelope.error.code,
      ms: performance.now() - started,
    });
  }

  /** Core NATS broadcast: every subscriber gets it; a lost one must be harmless. */
  publish(subject: string, payload: unknown): void {
    const requestId = currentRequestId();
    this.connection.publish(
      this.ns.subject(subject),
      encodeJson(payload),
      requestId ? { headers: requestHeaders(requestId) } : undefined,
    );
  }

  /**
   * Resolves once the server has processed everything this connection published before: a broadcast has then
   * been handed to every subscriber's connection.
   */
  flush(): Promise<void> {
    return this.connection.flush();
  }

  /** Receives every broadcast on `subject` (no queue group: each process gets its own copy). */
  onBroadcast<T>(subject: string, handler: (payload: T) => void): Subscription {
    const sub = this.connection.subscribe(this.ns.subject(subject), {
      callback: (err, msg) => {
        if (err) return;
        try {
          handler(decodeJson(msg.data) as T);
        } catch {
          // A malformed broadcast is dropped: broadcasts only ever invalidate caches or wake waiters.
        }
      },
    });
    this.subscriptions.push(sub);
    return sub;
  }

  /** Stops taking new messages, lets handlers in progress answer, then closes the connection. */
  async close(): Promise<void> {
    if (this.connection.isClosed()) return;
    for (const sub of this.subscriptions) sub.unsubscribe();
    await Promise.allSettled([...this.inFlight]);
    await this.connection.drain().catch(() => undefined);
  }

  isConnected(): boolean {
    return !this.connection.isClosed() && !this.connection.isDraining();
  }
}
