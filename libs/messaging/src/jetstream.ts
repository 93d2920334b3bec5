import {
  AckPolicy,
  type Consumer,
  DeliverPolicy,
  type JetStreamClient,
  type JetStreamManager,
  type JsMsg,
  jetstream,
  jetstreamManager,
  type NextMsgRequest,
  RetentionPolicy,
  type SeqMsgRequest,
  StorageType,
} from '@nats-io/jetstream';
import { createHash, randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { type ObjectInfo, Objm, type ObjectStore, setSha256Backend } from '@nats-io/obj';
import { nanos } from '@nats-io/transport-node';
import { type MessageBus, decodeJson, encodeJson, requestHeaders, requestIdOf } from './bus';
import { currentRequestId, withRequestId } from './request-context';
import { isTransientMessagingError } from './transient';

// Object-store digests (every upload and result file is hashed on put and checked on get) use Node's native
// SHA-256 rather than the client's portable pure-JavaScript default, which cost seconds per 100 MiB file.
setSha256Backend('native');

/**
 * Chunk size for objects put into the object store (uploads, result files). The client's default, 128 KiB,
 * means a publish and its acknowledgement for every 128 KiB, about 800 round trips for a 100 MiB upload; the
 * client caps it at the server's max_payload.
 */
const OBJECT_CHUNK_BYTES = 512 * 1024;

/** Chunks of an object read ahead of its reader (OBJECT_CHUNK_BYTES each, at most). */
const OBJECT_READ_AHEAD = 4;

/** Attempts of an idempotent publish (one with a message id) before its failure is reported. */
const PUBLISH_ATTEMPTS = 5;

/**
 * How often a stream's or consumer's set-up is tried when JetStream does not answer in time (a cluster electing
 * a leader, or busy placing the replicas of several services' streams at once), and the pause before the next
 * try, doubled each time. The set-up is idempotent, so trying again is safe.
 */
const SETUP_ATTEMPTS = 5;
const SETUP_RETRY_MS = 500;

/** Runs an idempotent JetStream set-up, trying again while JetStream is only unreachable for a while. */
async function retryingSetup(work: () => Promise<void>): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await work();
    } catch (err) {
      if (attempt >= SETUP_ATTEMPTS || !isTransientMessagingError(err)) throw err;
      await sleep(SETUP_RETRY_MS * 2 ** (attempt - 1));
    }
  }
}

export interface StreamSpec {
  /** Base name; the installation's namespace is prefixed. */
  name: string;
  /** Subjects without the namespace prefix, e.g. `verify.chunk.>`. */
  subjects: readonly string[];
  retention: 'workqueue' | 'limits';
  maxAgeMs?: number;
  /** Window in which a repeated Nats-Msg-Id is dropped by the server. */
  duplicateWindowMs?: number;
}

export interface ConsumerSpec {
  stream: string;
  durable: string;
  /** Subject filter without the namespace prefix. */
  filterSubject?: string;
  /** How long a message may stay unacknowledged before it is redelivered (a crashed worker's chunk comes back). */
  ackWaitMs: number;
  /** Deliveries before the server gives up on a message (-1: never). */
  maxDeliver?: number;
  /** Messages one process works on at once. */
  concurrency: number;
}

/** What becomes of a message its handler finished: acknowledged, or ended for good (never redelivered). */
export type JsHandlerResult = 'ack' | { terminate: string };

export interface JsDelivery<T> {
  payload: T;
  subject: string;
  /** The request the message belongs to (its X-Request-Id header, else a new id); the handler runs inside it. */
  requestId: string;
  /** 1 on the first delivery. */
  deliveryCount: number;
  /** Tells the server the message is still being worked on (extends the ack deadline). */
  working(): void;
  /** Aborted when the message was handed back (`ConsumerHandle.handBack`): its outcome no longer counts. */
  signal: AbortSignal;
}

/** A running pull consumer. */
export interface ConsumerHandle {
  /** Stops taking messages and finishes the ones in hand. */
  stop(): Promise<void>;
  /**
   * Stops taking messages and hands the ones in hand back to the server at once (a nak without delay), so
   * another consumer gets them now rather than after the ack wait; their handlers' outcomes are dropped.
   * Resolves to the number of messages handed back (each counted once).
   */
  handBack(): Promise<number>;
}

/** How far a durable consumer is behind its stream (base names, without the namespace). */
export interface ConsumerLag {
  stream: string;
  consumer: string;
  /** Messages of the stream the consumer has not been given yet. */
  pending: number;
  /** Messages given out and not acknowledged yet (being worked on, or waiting for redelivery). */
  ackPending: number;
}

const HANDED_BACK = Symbol('handed back');

/** JetStream for what must not be lost: namespaced streams, durable pull consumers and the object store. */
export class JetStreamKit {
  readonly js: JetStreamClient;
  private manager?: JetStreamManager;
  /** The consumers this process works (consume), by base stream and durable name. */
  private readonly working = new Map<string, { stream: string; durable: string }>();

  constructor(private readonly bus: MessageBus) {
    this.js = jetstream(bus.connection);
  }

  streamName(name: string): string {
    return this.bus.ns.resource(name);
  }

  async jsm(): Promise<JetStreamManager> {
    this.manager ??= await jetstreamManager(this.bus.connection);
    return this.manager;
  }

  /** Creates the stream, or updates it to the spec when it exists (idempotent, safe from every replica). */
  ensureStream(spec: StreamSpec): Promise<void> {
    return retryingSetup(() => this.setUpStream(spec));
  }

  private async setUpStream(spec: StreamSpec): Promise<void> {
    const jsm = await this.jsm();
    const config = {
      name: this.streamName(spec.name),
      subjects: spec.subjects.map((s) => this.bus.ns.subject(s)),
      retention: spec.retention === 'workqueue' ? RetentionPolicy.Workqueue : RetentionPolicy.Limits,
      storage: StorageType.File,
      max_age: spec.maxAgeMs ? nanos(spec.maxAgeMs) : 0,
      duplicate_window: nanos(spec.duplicateWindowMs ?? 120_000),
      num_replicas: this.bus.streamReplicas,
    };
    try {
      await jsm.streams.info(config.name);
      await jsm.streams.update(config.name, config);
    } catch (err) {
      if (!isNotFound(err)) throw err;
      try {
        await jsm.streams.add(config);
      } catch (addErr) {
        // Another replica created it in between.
        if (!/already in use|already exists/i.test(String(addErr))) throw addErr;
      }
    }
  }

  /**
   * Publishes durably; `msgId` makes a repeated publish within the duplicate window a no-op. With a `msgId`
   * the publish is safe to repeat, so one that finds JetStream not answering yet (a server restarting: "no
   * responders") or gets no acknowledgement in time is tried again a few times, with backoff, before failing.
   * The message carries `requestId`, else the request id of the work in progress, so its consumer's work names
   * the same request.
   */
  publish(
    subject: string,
    payload: unknown,
    msgId?: string,
    requestId?: string,
  ): Promise<{ duplicate: boolean; seq: number }> {
    return this.publishEncoded(subject, encodeJson(payload), msgId, requestId);
  }

  /** As publish, for a payload encoded already (a stream whose consumers decode it with their own `decode`). */
  async publishEncoded(
    subject: string,
    data: Uint8Array,
    msgId?: string,
    requestId?: string,
  ): Promise<{ duplicate: boolean; seq: number }> {
    const id = requestId ?? currentRequestId();
    const ack = await this.js.publish(this.bus.ns.subject(subject), data, {
      ...(msgId ? { msgID: msgId, retries: PUBLISH_ATTEMPTS } : {}),
      ...(id ? { headers: requestHeaders(id) } : {}),
    });
    return { duplicate: ack.duplicate, seq: ack.seq };
  }

  /** Creates the durable consumer, or updates it to the spec when it exists (idempotent, like ensureStream). */
  ensureConsumer(spec: ConsumerSpec): Promise<void> {
    return retryingSetup(() => this.setUpConsumer(spec));
  }

  private async setUpConsumer(spec: ConsumerSpec): Promise<void> {
    const jsm = await this.jsm();
    const stream = this.streamName(spec.stream);
    const durable = this.bus.ns.resource(spec.durable);
    const config = {
      durable_name: durable,
      ack_policy: AckPolicy.Explicit,
      deliver_policy: DeliverPolicy.All,
      ack_wait: nanos(spec.ackWaitMs),
      max_deliver: spec.maxDeliver ?? -1,
      max_ack_pending: Math.max(1000, spec.concurrency * 4),
      num_replicas: this.bus.streamReplicas,
      ...(spec.filterSubject ? { filter_subject: this.bus.ns.subject(spec.filterSubject) } : {}),
    };
    try {
      await jsm.consumers.info(stream, durable);
      await jsm.consumers.update(stream, durable, config);
    } catch (err) {
      if (!isNotFound(err)) throw err;
      try {
        await jsm.consumers.add(stream, config);
      } catch (addErr) {
        if (!/already in use|already exists/i.test(String(addErr))) throw addErr;
      }
    }
  }

  /**
   * Works a durable pull consumer with at most `concurrency` messages in hand. A handler that throws has its
   * message redelivered after a short delay; messages in hand when the process dies come back after ackWait.
   */
  async consume<T>(
    spec: ConsumerSpec,
    handler: (delivery: JsDelivery<T>) => Promise<JsHandlerResult>,
    onError: (err: unknown, msg: JsMsg) => void,
    /** How payloads were encoded (JSON unless published with publishEncoded). */
    decode: (data: Uint8Array) => T = (data) => decodeJson(data) as T,
  ): Promise<ConsumerHandle> {
    await this.ensureConsumer(spec);
    const consumer = await this.js.consumers.get(
      this.streamName(spec.stream),
      this.bus.ns.resource(spec.durable),
    );
    const key = `${spec.stream}/${spec.durable}`;
    this.working.set(key, { stream: spec.stream, durable: spec.durable });
    const pulls = new PullLoop<T>(consumer, spec.concurrency, {
      handler,
      onError,
      decode,
      subjectOf: (msg) => msg.subject.slice(this.bus.ns.prefix.length + 1),
      recreate: () => this.ensureConsumer(spec),
    });
    pulls.start();
    return {
      stop: async () => {
        this.working.delete(key);
        await pulls.stop();
      },
      handBack: async () => {
        this.working.delete(key);
        return pulls.handBack();
      },
    };
  }

  /**
   * The lag of every consumer this process works, from one consumer-info request each (answered by the server
   * from its own state; nothing is read from the stream). A consumer whose info cannot be had is left out.
   */
  async consumerLag(): Promise<ConsumerLag[]> {
    // A process that works no consumer asks nothing (its NATS user may not be allowed JetStream at all).
    if (this.working.size === 0) return [];
    const jsm = await this.jsm();
    const lags = await Promise.all(
      [...this.working.values()].map(async ({ stream, durable }): Promise<ConsumerLag | undefined> => {
        try {
          const info = await jsm.consumers.info(this.streamName(stream), this.bus.ns.resource(durable));
          return { stream, consumer: durable, pending: info.num_pending, ackPending: info.num_ack_pending };
        } catch {
          return undefined;
        }
      }),
    );
    return lags.filter((lag): lag is ConsumerLag => lag !== undefined);
  }

  /** The object store bucket (created when missing), namespaced like everything else. */
  async objectStore(bucket: string): Promise<ObjectStore> {
    const objm = new Objm(this.js);
    const name = this.bus.ns.resource(bucket);
    try {
      return await objm.open(name);
    } catch {
      return objm.create(name, { storage: StorageType.File, replicas: this.bus.streamReplicas });
    }
  }

  /** Bytes a bucket holds (its objects' chunks and metadata, as JetStream stores them). */
  async bucketBytes(bucket: string): Promise<number> {
    const { streamInfo } = await (await this.objectStore(bucket)).status();
    return streamInfo.state.bytes;
  }

  /**
   * Removes object chunks that no object refers to and that nothing was added to for `idleMs`: what a put
   * left behind when its process died before the put finished (a put that fails in a living process removes
   * its own). A put in progress keeps adding chunks, and a finished one is listed, so neither is touched.
   * Returns how many partial objects were removed.
   */
  async removePartialObjects(bucket: string, idleMs: number): Promise<number> {
    const store = await this.objectStore(bucket);
    const jsm = await this.jsm();
    // Objects first, chunks second: a put that finishes in between has fresh chunks, which are left alone.
    const listed = new Set((await store.list()).map((info) => info.nuid));
    // The bucket's stream holds only its own subjects; chunks are `$O.<bucket>.C.<nuid>`.
    const { streamInfo } = await store.status({ subjects_filter: '$O.*.C.>' });
    const stream = streamInfo.config.name;
    const unlisted = Object.keys(streamInfo.state.subjects ?? {}).filter(
      (subject) => !listed.has(nuidOf(subject)),
    );
    if (unlisted.length === 0) return 0;
    // ObjectStore.list() ends at its watcher's first idle heartbeat, which a busy server may send before the
    // last entries: before anything is removed, the objects are read again, entry by entry.
    const objects = new Set((await this.objectInfos(bucket)).map((info) => info.nuid));
    let removed = 0;
    for (const subject of unlisted) {
      if (objects.has(nuidOf(subject))) continue;
      const last = await jsm.streams.getMessage(stream, { last_by_subj: subject });
      if (!last || Date.now() - last.time.getTime() < idleMs) continue;
      await jsm.streams.purge(stream, { filter: subject });
      removed += 1;
    }
    return removed;
  }

  /**
   * Every object of a bucket (not deleted ones), read from the stream entry by entry: one message get per
   * object, where ObjectStore.list() takes one consumer but may end early (see removePartialObjects).
   */
  async objectInfos(bucket: string): Promise<ObjectInfo[]> {
    const store = await this.objectStore(bucket);
    const jsm = await this.jsm();
    const { streamInfo } = await store.status({ subjects_filter: '$O.*.M.>' });
    const infos: ObjectInfo[] = [];
    for (const subject of Object.keys(streamInfo.state.subjects ?? {})) {
      const entry = await jsm.streams
        .getMessage(streamInfo.config.name, { last_by_subj: subject })
        .catch(() => null);
      const info = entry?.json<ObjectInfo>();
      if (info && !info.deleted) infos.push(info);
    }
    return infos;
  }

  /**
   * Reads an object of a bucket: its info and its data as a stream, or null when there is no such object. Same
   * result as ObjectStore.get, but the chunks are read one at a time by stream sequence instead of through an
   * ephemeral ordered consumer: NATS servers before 2.12 may place that consumer on an offline node of a cluster
   * (nats-io/nats-server#7165), and then every such read times out while one node of three is down.
   *
   * Each chunk is asked for with a direct get where the bucket's stream allows it (the chunk's bytes come back
   * as they are, from any node that holds the stream), and with the stream's message-get API (answered by the
   * leader, as base64 inside JSON) otherwise, and when the direct get finds nothing or fails: a node that is
   * still catching up may not hold the chunk yet. Up to OBJECT_READ_AHEAD chunks are read ahead of the reader, so
   * the next chunk is on its way while the current one is being used. The digest is checked as
   * ObjectStore.get checks it.
   */
  async getObject(
    bucket: string,
    name: string,
  ): Promise<{ info: ObjectInfo; data: ReadableStream<Uint8Array> } | null> {
    const store = await this.objectStore(bucket);
    const info = await store.info(name);
    if (!info || info.deleted) return null;
    if (info.options?.link) {
      const linked = await store.get(name);
      return linked && { info: linked.info, data: linked.data };
    }
    if (!info.digest.startsWith('SHA-256='))
      throw new Error(`object ${name}: unknown digest type ${info.digest}`);
    const expected = Buffer.from(info.digest.slice('SHA-256='.length), 'base64');
    const jsm = await this.jsm();
    const stream = `OBJ_${this.bus.ns.resource(bucket)}`;
    const subject = `$O.${this.bus.ns.resource(bucket)}.C.${info.nuid}`;
    const hash = createHash('sha256');
    // A stream that does not allow direct gets leaves them unanswered (a timeout), so ask it first.
    let direct = (await store.status()).streamInfo.config.allow_direct === true;
    /** The first chunk at or after `seq`: by direct get, else from the leader; null when there is none. */
    const chunkFrom = async (seq: number): Promise<{ seq: number; data: Uint8Array } | null> => {
      // A sequence request that also names next_by_subj: the client sends the query as it is, and the server
      // (NATS 2.9+) answers with the first message of that subject at or after `seq`.
      const next: SeqMsgRequest & NextMsgRequest = { seq, next_by_subj: subject };
      if (direct) {
        try {
          const msg = await jsm.direct.getMessage(stream, next);
          if (msg) return { seq: msg.seq, data: msg.data };
        } catch {
          // No node answers direct gets for this stream (it does not allow them): the leader for the rest.
          direct = false;
        }
      }
      const msg = await jsm.streams.getMessage(stream, next);
      return msg && { seq: msg.seq, data: msg.data };
    };
    let read = 0;
    let seq = 1;
    return {
      info,
      data: new ReadableStream<Uint8Array>(
        {
          pull: async (controller) => {
            if (read === info.chunks) {
              if (!hash.digest().equals(expected))
                throw new Error(`object ${name}: received a corrupt object, digests do not match`);
              controller.close();
              return;
            }
            const msg = await chunkFrom(seq);
            if (!msg) throw new Error(`object ${name}: chunk ${read + 1} of ${info.chunks} is missing`);
            read += 1;
            seq = msg.seq + 1;
            hash.update(msg.data);
            controller.enqueue(msg.data);
          },
        },
        { highWaterMark: OBJECT_READ_AHEAD },
      ),
    };
  }

  /** Stores a stream as an object (replacing one of that name), in chunks of OBJECT_CHUNK_BYTES. */
  putObject(store: ObjectStore, name: string, data: ReadableStream<Uint8Array>): Promise<ObjectInfo> {
    return store.put({ name, options: { max_chunk_size: OBJECT_CHUNK_BYTES } }, data);
  }

  /** Removes every stream of this namespace (tests clean up after themselves with it). */
  async deleteNamespaceStreams(): Promise<void> {
    const jsm = await this.jsm();
    const prefix = `${this.bus.ns.prefix}_`;
    const names: string[] = [];
    for await (const info of jsm.streams.list()) {
      const name = info.config.name;
      if (name.startsWith(prefix) || name.startsWith(`OBJ_${prefix}`)) names.push(name);
    }
    for (const name of names) await jsm.streams.delete(name).catch(() => undefined);
  }
}

/** What a pull loop does with each message, and how it re-creates its consumer when the server lost it. */
interface MessageWork<T> {
  handler: (delivery: JsDelivery<T>) => Promise<JsHandlerResult>;
  onError: (err: unknown, msg: JsMsg) => void;
  decode: (data: Uint8Array) => T;
  /** The message's subject without the namespace prefix. */
  subjectOf: (msg: JsMsg) => string;
  recreate: () => Promise<void>;
}

/**
 * The pull loop of one consumer (`pull`) and the work on each message it brings (`work`).
 *
 * Short pull requests: a worker that dies leaves its open pull request at the server, which keeps handing it
 * messages (each then waits out ackWait) until the request expires; 5 s bounds that loss. Each pull asks for no
 * more than the free places and is read to its end, even when stopping: a message the server sent is always
 * seen, and one that arrives while stopping goes straight back (not lost until the ack wait).
 */
class PullLoop<T> {
  private readonly inHand = new Set<Promise<void>>();
  private stopping = false;
  private readonly stopped = new AbortController();
  private readonly whenStopped = new Promise<void>((resolve) =>
    this.stopped.signal.addEventListener('abort', () => resolve(), { once: true }),
  );
  private readonly handingBack = new AbortController();
  private readonly whenHandedBack = new Promise<typeof HANDED_BACK>((resolve) =>
    this.handingBack.signal.addEventListener('abort', () => resolve(HANDED_BACK), { once: true }),
  );
  /**
   * Stream sequences of the messages handed back: one nak'd while this consumer's last pull is still open may
   * come back to it and be handed back again, and counts once.
   */
  private readonly handedBackSeqs = new Set<number>();
  private loop: Promise<void> = Promise.resolve();

  constructor(
    private readonly consumer: Consumer,
    private readonly concurrency: number,
    private readonly messages: MessageWork<T>,
  ) {}

  start(): void {
    this.loop = this.pull();
  }

  /** Stops pulling and finishes the messages in hand. */
  async stop(): Promise<void> {
    await this.close();
    await Promise.allSettled([...this.inHand]);
  }

  /** Stops pulling and hands the messages in hand back at once; how many were handed back. */
  async handBack(): Promise<number> {
    this.handingBack.abort();
    await this.stop();
    return this.handedBackSeqs.size;
  }

  private async close(): Promise<void> {
    this.stopping = true;
    this.stopped.abort();
    await this.loop.catch(() => undefined);
  }

  /** Pulls as many messages as there are free places, starts each, and waits for a place when none is free. */
  private async pull(): Promise<void> {
    while (!this.stopping) {
      const free = this.concurrency - this.inHand.size;
      if (free <= 0) {
        await Promise.race([...this.inHand, this.whenStopped]);
        continue;
      }
      try {
        const batch = await this.consumer.fetch({
          max_messages: free,
          expires: 5_000,
          idle_heartbeat: PULL_HEARTBEAT_MS,
        });
        for await (const msg of batch) {
          // Pulled but not started: back to the server at once.
          if (this.stopping) {
            msg.nak();
            if (this.handingBack.signal.aborted) this.handedBackSeqs.add(msg.seq);
            continue;
          }
          const task = this.work(msg).finally(() => this.inHand.delete(task));
          this.inHand.add(task);
        }
      } catch (err) {
        if (this.stopping) break;
        // A pull the server left unanswered (no messages, no heartbeats): pull again at once. NATS restarting, the
        // consumer being re-created: try again shortly.
        if (pullLost(err)) continue;
        if (isNotFound(err)) await this.messages.recreate().catch(() => undefined);
        await Promise.race([new Promise((resolve) => setTimeout(resolve, 1_000)), this.whenStopped]);
      }
    }
  }

  /** One message: its handler runs inside the message's request; the outcome acks, naks or ends it. */
  private async work(msg: JsMsg): Promise<void> {
    const { handler, onError, decode, subjectOf } = this.messages;
    const requestId = requestIdOf(msg) ?? randomUUID();
    const handled = withRequestId(requestId, async () =>
      handler({
        payload: decode(msg.data),
        subject: subjectOf(msg),
        requestId,
        deliveryCount: msg.info.deliveryCount,
        working: () => msg.working(),
        signal: this.handingBack.signal,
      }),
    ).then(
      (result) => ({ result }),
      (error: unknown) => ({ error }),
    );
    const outcome = await Promise.race([handled, this.whenHandedBack]);
    if (outcome === HANDED_BACK) {
      msg.nak();
      this.handedBackSeqs.add(msg.seq);
      return;
    }
    if ('error' in outcome) {
      withRequestId(requestId, () => onError(outcome.error, msg));
      if (!this.stopping) msg.nak(1_000);
      return;
    }
    if (outcome.result === 'ack') msg.ack();
    else msg.term(outcome.result.terminate);
  }
}

/**
 * How often the server says an open pull is alive; the client ends a pull after two missed heartbeats. NATS 2.9
 * now and then leaves a pull request unanswered (seen about 1 in 120 under load); with nats.js's default (half of
 * `expires`) the loop then stood still for 5 s, now for 2 s.
 */
export const PULL_HEARTBEAT_MS = 1_000;

/** The error nats.js ends a pull with when the server's heartbeats stopped: the request was lost, not the consumer. */
export function pullLost(err: unknown): boolean {
  return err instanceof Error && /heartbeats missed/i.test(err.message);
}

/** The object's id in a chunk subject (`$O.<bucket>.C.<nuid>`). */
function nuidOf(chunkSubject: string): string {
  return chunkSubject.slice(chunkSubject.lastIndexOf('.') + 1);
}

function isNotFound(err: unknown): boolean {
  const e = err as { code?: string | number; api_error?: { err_code?: number }; message?: string };
  return (
    e?.api_error?.err_code === 10059 ||
    e?.api_error?.err_code === 10014 ||
    /not found/i.test(e?.message ?? '')
  );
}
