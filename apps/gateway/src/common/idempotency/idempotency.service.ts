import { randomUUID } from 'node:crypto';
import { Inject, Injectable, type OnApplicationShutdown } from '@nestjs/common';
import { DomainError } from '@emailverify/contracts';
import { LOGGER } from '@emailverify/service-kit';
import type { Response } from 'express';
import { Redis } from 'ioredis';
import type { Logger } from 'pino';
import { GATEWAY_CONFIG, type GatewayConfig } from '../../config';
import { GatewayMetrics } from '../../gateway.metrics';
import type { GatewayRequest } from '../http/request-context';
import { renderStyle } from '../http/style';
import {
  type Begun,
  decideRepeat,
  fingerprint,
  keyInUse,
  REPLAYED_HEADER,
  settle,
  STORED_HEADERS,
  type StoredReply,
  toSeconds,
  tooManyKeys,
  uploadDigest,
} from './idempotency';
import {
  IdempotencyStore,
  type KeyScope,
  MemoryIdempotencyStore,
  RedisIdempotencyStore,
  type StoreLimits,
} from './idempotency.store';

/** What a request with a key is, once the store has answered. */
interface KeyedRequest {
  scope: KeyScope;
  /** Known before the handler for a JSON body; for an upload, once its file has been read (checkUpload). */
  fingerprint?: string;
  /** The key was done already: an upload's file is only hashed (never stored), then replayed or refused. */
  stored?: Extract<Begun, { kind: 'done' }>;
}

const keyed = new WeakMap<GatewayRequest, KeyedRequest>();

/** Whether this upload's key already has an outcome: its file is then hashed, not stored (ObjectStoreStorage). */
export const isReplayCandidate = (req: object): boolean =>
  keyed.get(req as GatewayRequest)?.stored !== undefined;

/** Thrown to answer with a stored reply; ApiExceptionFilter sends it as it was, marked Idempotent-Replayed. */
export class ReplayedReply extends Error {
  constructor(readonly reply: StoredReply) {
    super('replayed reply');
  }
}

/** Sends a stored reply: its status, the outcome's headers and body, and `Idempotent-Replayed: true`. */
export function sendReplay(res: Response, reply: StoredReply): void {
  for (const name of res.getHeaderNames()) if (name.startsWith('content-')) res.removeHeader(name);
  for (const [name, value] of Object.entries(reply.headers))
    if (value !== undefined) res.setHeader(name, value);
  res.setHeader(REPLAYED_HEADER, 'true');
  res.setHeader('Content-Length', String(reply.body.byteLength));
  res.status(reply.status).end(reply.body);
}

/**
 * Idempotency-Key on the API's POST and DELETE routes. The first request with a key holds it (a lease renewed
 * while it is served); its reply is kept, before it is sent, so a repeat that arrives once the client has the
 * reply finds it. A repeat of the same request gets that reply again; another request with the key is 422; a
 * repeat while the first is served is 409. A 5xx or 429 frees the key instead (see `settle`).
 */
@Injectable()
export class IdempotencyService implements OnApplicationShutdown {
  private readonly store: IdempotencyStore;
  private readonly limits: StoreLimits;
  /** How long a lease is renewed at most: past the longest deadline of a request, its handler is stuck. */
  private readonly renewForMs: number;

  constructor(
    @Inject(GATEWAY_CONFIG) private readonly config: Readonly<GatewayConfig>,
    @Inject(LOGGER) private readonly logger: Logger,
    private readonly metrics: GatewayMetrics,
  ) {
    this.limits = {
      ttlMs: Math.round(config.IDEMPOTENCY_TTL_HOURS * 3_600_000),
      leaseMs: config.IDEMPOTENCY_LEASE_SECONDS * 1000,
      maxKeys: config.IDEMPOTENCY_MAX_KEYS,
    };
    this.renewForMs = Math.max(config.VERIFY_TIMEOUT_MS, config.FILE_CREATE_TIMEOUT_MS) + 60_000;
    this.store = config.REDIS_URL
      ? this.redisStore(config.REDIS_URL)
      : new MemoryIdempotencyStore(this.limits);
  }

  private redisStore(url: string): IdempotencyStore {
    // Commands wait for the connection (a gateway just started) but fail after one retry when Redis is down.
    const redis = new Redis(url, {
      maxRetriesPerRequest: 1,
      retryStrategy: (attempt) => Math.min(attempt * 200, 2_000),
    });
    redis.on('error', (err) => this.logger.warn({ err: err.message }, 'idempotency store error'));
    return new RedisIdempotencyStore(redis, this.config.NATS_NAMESPACE, this.limits);
  }

  /**
   * Starts a request with `key`: replays or refuses it (by throwing), or holds the key and keeps the reply
   * when it is sent. `requestFingerprint` is undefined for an upload, whose file is not read yet.
   */
  async begin(
    req: GatewayRequest,
    res: Response,
    accountId: string,
    key: string,
    requestFingerprint: string | undefined,
  ): Promise<void> {
    const scope = { accountId, key };
    const token = randomUUID();
    let begun: Begun;
    try {
      begun = await this.store.begin(scope, token);
    } catch (err) {
      // Failing closed: a caller who sent a key asked not to be served twice, which cannot be promised now.
      this.logger.warn({ err: err instanceof Error ? err.message : String(err) }, 'idempotency store failed');
      this.metrics.idempotencyRequest('store_failed');
      throw new DomainError('SERVICE_UNAVAILABLE', 'The Idempotency-Key could not be checked; try again');
    }
    switch (begun.kind) {
      case 'done':
        if (requestFingerprint === undefined) {
          keyed.set(req, { scope, stored: begun });
          return;
        }
        return this.repeat(begun, requestFingerprint);
      case 'busy':
        this.metrics.idempotencyRequest('in_use');
        // The first request usually ends within moments; its lease's end is only the latest it can take.
        res.setHeader('Retry-After', '1');
        throw keyInUse(1);
      case 'full': {
        this.metrics.idempotencyRequest('limit');
        const retryAfter = toSeconds(begun.retryAfterMs);
        res.setHeader('Retry-After', String(retryAfter));
        throw tooManyKeys(this.limits.maxKeys, retryAfter);
      }
      case 'acquired':
        this.metrics.idempotencyRequest('first');
        keyed.set(req, { scope, fingerprint: requestFingerprint });
        this.hold(req, res, scope, token);
    }
  }

  /**
   * An upload's turn, once its file has been read and hashed: replays or refuses a key that was done, else
   * records the fingerprint its outcome is kept under. Nothing to do for a request without a key.
   */
  checkUpload(
    req: GatewayRequest,
    file: { sha256?: string; originalname: string } | undefined,
    fields: unknown,
  ): void {
    const state = keyed.get(req);
    if (!state) return;
    const digest = uploadDigest(
      file ? { sha256: file.sha256 ?? '', name: file.originalname } : undefined,
      fields,
    );
    const requestFingerprint = fingerprint({
      method: req.method,
      url: req.originalUrl,
      style: renderStyle(req),
      bodyDigest: digest,
    });
    if (state.stored) this.repeat(state.stored, requestFingerprint);
    state.fingerprint = requestFingerprint;
  }

  private repeat(stored: Extract<Begun, { kind: 'done' }>, requestFingerprint: string): never {
    const decision = decideRepeat(stored, requestFingerprint);
    this.metrics.idempotencyRequest('replay' in decision ? 'replayed' : 'reused');
    if ('replay' in decision) throw new ReplayedReply(decision.replay);
    throw decision.error;
  }

  /**
   * Holds the key while the request is served, and settles it with the reply: res.end is taken over for this
   * one response, so the reply's bytes are kept and the key settled before the client can see them.
   */
  private hold(req: GatewayRequest, res: Response, scope: KeyScope, token: string): void {
    const renewal = setInterval(
      () => {
        this.store.renew(scope, token).then(
          (held) => {
            if (!held) {
              clearInterval(renewal);
              this.logger.warn({ requestId: req.requestId }, 'idempotency lease lost while serving');
            }
          },
          (err: unknown) =>
            this.logger.warn({ err: String(err), requestId: req.requestId }, 'lease renewal failed'),
        );
      },
      Math.max(1000, Math.floor(this.limits.leaseMs / 3)),
    );
    renewal.unref();
    const giveUp = setTimeout(() => clearInterval(renewal), this.renewForMs);
    giveUp.unref();

    const chunks: Buffer[] = [];
    let size = 0;
    const collect = (chunk: unknown, encoding: unknown): void => {
      if (chunk === undefined || chunk === null || typeof chunk === 'function') return;
      const buffer = Buffer.isBuffer(chunk)
        ? chunk
        : chunk instanceof Uint8Array
          ? Buffer.from(chunk)
          : Buffer.from(String(chunk), typeof encoding === 'string' ? (encoding as BufferEncoding) : 'utf8');
      size += buffer.byteLength;
      if (size <= this.config.IDEMPOTENCY_MAX_REPLY_BYTES) chunks.push(buffer);
    };
    const write = res.write;
    const end = res.end;
    res.write = function (this: Response, chunk: unknown, ...rest: unknown[]) {
      collect(chunk, rest[0]);
      return (write as (...args: unknown[]) => boolean).call(this, chunk, ...rest);
    } as Response['write'];
    const send = end as (...a: unknown[]) => Response;
    res.end = ((...args: unknown[]) => {
      res.write = write;
      clearInterval(renewal);
      clearTimeout(giveUp);
      collect(args[0], args[1]);
      const settled = this.settleKey(req, res, scope, token, Buffer.concat(chunks), size);
      // A further end() while the key settles goes out after this one, in order, as it would have.
      res.end = ((...later: unknown[]) => {
        void settled.finally(() => send.apply(res, later));
        return res;
      }) as Response['end'];
      void settled.finally(() => {
        res.end = end;
        send.apply(res, args);
      });
      return res;
    }) as Response['end'];
  }

  /** Keeps the reply under the key, or frees the key (a 5xx, a 429, a reply too large, an unread upload). */
  private async settleKey(
    req: GatewayRequest,
    res: Response,
    scope: KeyScope,
    token: string,
    body: Buffer,
    size: number,
  ): Promise<void> {
    const requestFingerprint = keyed.get(req)?.fingerprint;
    const decision = settle(res.statusCode, size, this.config.IDEMPOTENCY_MAX_REPLY_BYTES);
    try {
      if (decision === 'store' && requestFingerprint !== undefined) {
        const kept = await this.store.complete(scope, token, requestFingerprint, {
          status: res.statusCode,
          headers: storedHeaders(res),
          body,
        });
        if (!kept) this.logger.warn({ requestId: req.requestId }, 'idempotency lease lost; reply not kept');
        return;
      }
      if (size > this.config.IDEMPOTENCY_MAX_REPLY_BYTES) {
        this.logger.warn(
          { requestId: req.requestId, size },
          'reply too large to keep; idempotency key freed',
        );
      }
      await this.store.release(scope, token);
    } catch (err) {
      // The lease runs out by itself: the key is free again within IDEMPOTENCY_LEASE_SECONDS.
      this.logger.warn({ err: String(err), requestId: req.requestId }, 'idempotency store failed at settle');
    }
  }

  async onApplicationShutdown(): Promise<void> {
    await this.store.close();
  }
}

function storedHeaders(res: Response): StoredReply['headers'] {
  const headers: StoredReply['headers'] = {};
  for (const name of STORED_HEADERS) {
    const value = res.getHeader(name);
    if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(', ') : String(value);
  }
  return headers;
}
