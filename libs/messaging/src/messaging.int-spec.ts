import { randomBytes } from 'node:crypto';
import { AckPolicy, type ConsumerInfo } from '@nats-io/jetstream';
import { type AccountId, DomainError, Subjects } from '@emailverify/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setTimeout as sleep } from 'node:timers/promises';
import { encodeJson, MessageBus, requestHeaders, requestIdOf } from './bus';
import { JetStreamKit, PULL_HEARTBEAT_MS, pullLost } from './jetstream';
import { currentRequestId } from './request-context';

const url = process.env.NATS_URL || 'nats://127.0.0.1:4222';
const ns = () => `t_msg_${randomBytes(4).toString('hex')}`;
const pass = <T>(payload: unknown) => payload as T;

/** Runs `check` until it passes (the shared test helpers depend on this library, so it has its own). */
async function eventually(check: () => Promise<void>, tries = 200): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await check();
    } catch (err) {
      if (attempt >= tries) throw err;
      await sleep(50);
    }
  }
}

describe('messaging: request/reply with deadlines (real NATS)', () => {
  let server: MessageBus;
  let client: MessageBus;
  let stranger: MessageBus;

  beforeAll(async () => {
    const namespace = ns();
    server = await MessageBus.connect({ url, namespace, name: 'server' });
    client = await MessageBus.connect({ url, namespace, name: 'client', requestTimeoutMs: 500 });
    stranger = await MessageBus.connect({ url, namespace: ns(), name: 'stranger', requestTimeoutMs: 500 });
  });
  afterAll(async () => {
    await Promise.all([server?.close(), client?.close(), stranger?.close()]);
  });

  it('answers with the handler reply and carries the request id', async () => {
    let seenId = '';
    server.serve(Subjects.creditsPing, {
      queue: 'credits',
      parse: pass,
      handler: async (_req, ctx) => {
        seenId = ctx.requestId;
        return { service: 'credits', ok: true };
      },
    });
    await server.connection.flush();
    expect(await client.request(Subjects.creditsPing, {}, { requestId: 'req-42' })).toEqual({
      service: 'credits',
      ok: true,
    });
    expect(seenId).toBe('req-42');
  });

  it('keeps namespaces apart: another installation gets no responder', async () => {
    await expect(stranger.request(Subjects.creditsPing, {})).rejects.toMatchObject({
      code: 'SERVICE_UNAVAILABLE',
      message: expect.stringContaining('credits service is not available'),
    });
  });

  it('turns a missing service into SERVICE_UNAVAILABLE at once, and a silent one into it at the deadline', async () => {
    await expect(client.request(Subjects.verifierPing, {})).rejects.toMatchObject({
      code: 'SERVICE_UNAVAILABLE',
    });
    // A subscriber that never answers.
    client.connection.subscribe(client.ns.subject(Subjects.creditsBalanceGet), { callback: () => undefined });
    await client.connection.flush();
    await expect(
      client.request(Subjects.creditsBalanceGet, { accountId: 'a' as AccountId, apiKeyId: 'b' }),
    ).rejects.toMatchObject({
      code: 'SERVICE_UNAVAILABLE',
      message: expect.stringContaining('did not answer within 500 ms'),
    });
  });

  it('passes domain errors through and hides unexpected ones behind an error id', async () => {
    let reported: unknown;
    server.serve(Subjects.creditsReserve, {
      queue: 'credits',
      parse: pass,
      handler: async (req) => {
        if (req.amount > 5) throw new DomainError('INSUFFICIENT_CREDITS', 'short', { required: req.amount });
        throw new Error('database exploded');
      },
      onError: (err) => (reported = err),
    });
    await server.connection.flush();
    const short = client.request(Subjects.creditsReserve, {
      accountId: 'a' as AccountId,
      idempotencyKey: 'k',
      amount: 9,
    });
    await expect(short).rejects.toBeInstanceOf(DomainError);
    await expect(short).rejects.toMatchObject({ code: 'INSUFFICIENT_CREDITS', details: { required: 9 } });
    await expect(
      client.request(Subjects.creditsReserve, {
        accountId: 'a' as AccountId,
        idempotencyKey: 'k',
        amount: 1,
      }),
    ).rejects.toMatchObject({
      code: 'INTERNAL_ERROR',
      message: expect.stringMatching(/error id|id [0-9a-f-]{36}/),
    });
    expect(String(reported)).toContain('database exploded');
  });

  it('refuses a payload that fails validation or is not JSON', async () => {
    server.serve(Subjects.creditsKeyList, {
      queue: 'credits',
      parse: () => {
        throw new DomainError('INVALID_REQUEST', 'accountId: required');
      },
      handler: async () => ({ keys: [] }),
    });
    await server.connection.flush();
    await expect(client.request(Subjects.creditsKeyList, {} as never)).rejects.toMatchObject({
      code: 'INVALID_REQUEST',
    });
    const raw = await client.connection.request(
      client.ns.subject(Subjects.creditsKeyList),
      new TextEncoder().encode('{nope'),
      { timeout: 500 },
    );
    expect(raw.json()).toMatchObject({ ok: false, error: { code: 'INVALID_REQUEST' } });
  });

  it('answers every request made in one turn with its own reply', async () => {
    server.serve(Subjects.creditsBalanceGet, {
      queue: 'credits',
      parse: pass,
      handler: async (req) => ({ accountId: req.accountId, balance: Number(req.apiKeyId) }) as never,
    });
    await server.connection.flush();
    const asked = Array.from({ length: 300 }, (_, i) =>
      client.request(Subjects.creditsBalanceGet, {
        accountId: `acct-${i}` as AccountId,
        apiKeyId: String(i),
      }),
    );
    const replies = await Promise.all(asked);
    expect(replies.map((r) => [r.accountId, r.balance])).toEqual(
      Array.from({ length: 300 }, (_, i) => [`acct-${i}`, i]),
    );
  });

  it('delivers, in order, what was published just before the connection closed', async () => {
    const namespace = ns();
    const listener = await MessageBus.connect({ url, namespace, name: 'listener' });
    const sender = await MessageBus.connect({ url, namespace, name: 'sender' });
    try {
      const heard: number[] = [];
      listener.onBroadcast<{ n: number }>('events.test', (payload) => heard.push(payload.n));
      await listener.flush();
      for (let n = 0; n < 50; n++) sender.publish('events.test', { n });
      await sender.close();
      await eventually(async () => expect(heard).toHaveLength(50));
      expect(heard).toEqual(Array.from({ length: 50 }, (_, n) => n));
    } finally {
      await Promise.all([listener.close(), sender.close()]);
    }
  });
});

describe('messaging: JetStream streams, consumers and object store (real NATS)', () => {
  let bus: MessageBus;
  let kit: JetStreamKit;

  beforeAll(async () => {
    bus = await MessageBus.connect({ url, namespace: ns(), name: 'js' });
    kit = new JetStreamKit(bus);
    await kit.ensureStream({ name: 'WORK', subjects: ['work.>'], retention: 'workqueue' });
    await kit.ensureStream({ name: 'WORK', subjects: ['work.>'], retention: 'workqueue' });
  });
  afterAll(async () => {
    await kit?.deleteNamespaceStreams();
    await bus?.close();
  });

  it('creates streams, consumers and buckets with the configured replica count', async () => {
    const jsm = await kit.jsm();
    expect((await jsm.streams.info(kit.streamName('WORK'))).config.num_replicas).toBe(1);
    // A single server cannot hold three replicas: asking for them reaches the server and is refused, where a
    // three-node cluster would accept them.
    const clustered = await MessageBus.connect({
      url,
      namespace: ns(),
      name: 'clustered',
      streamReplicas: 3,
    });
    try {
      const clusteredKit = new JetStreamKit(clustered);
      await expect(
        clusteredKit.ensureStream({ name: 'R3', subjects: ['r3.>'], retention: 'workqueue' }),
      ).rejects.toThrow(/replicas/i);
    } finally {
      await clustered.close();
    }
  });

  it('drops a repeated publish with the same message id', async () => {
    const first = await kit.publish('work.dedupe', { n: 1 }, 'same-id');
    const second = await kit.publish('work.dedupe', { n: 1 }, 'same-id');
    expect(first.duplicate).toBe(false);
    expect(second.duplicate).toBe(true);
  });

  it('redelivers what a handler failed, and what a crashed worker held, until it is acknowledged', async () => {
    for (let i = 0; i < 5; i++) await kit.publish('work.job', { i }, `job-${i}`);

    // A worker that takes one message and dies without acknowledging it.
    const doomed = await MessageBus.connect({ url, namespace: bus.ns.prefix, name: 'doomed' });
    const doomedKit = new JetStreamKit(doomed);
    let taken!: () => void;
    const tookOne = new Promise<void>((r) => (taken = r));
    await doomedKit.consume(
      { stream: 'WORK', durable: 'workers', filterSubject: 'work.job', ackWaitMs: 1_000, concurrency: 1 },
      () => {
        taken();
        return new Promise<never>(() => undefined);
      },
      () => undefined,
    );
    await tookOne;
    doomed.connection.close().catch(() => undefined);

    const seen = new Map<number, number[]>();
    let failedOnce = false;
    const done = new Promise<void>((resolve) => {
      void kit.consume<{ i: number }>(
        { stream: 'WORK', durable: 'workers', filterSubject: 'work.job', ackWaitMs: 1_000, concurrency: 2 },
        async ({ payload, deliveryCount }) => {
          seen.set(payload.i, [...(seen.get(payload.i) ?? []), deliveryCount]);
          if (payload.i === 3 && !failedOnce) {
            failedOnce = true;
            throw new Error('transient');
          }
          if (
            [...seen.values()].filter((d) => d.length > 0).length === 5 &&
            failedOnce &&
            seen.get(3)!.length >= 2
          )
            resolve();
          return 'ack';
        },
        () => undefined,
      );
    });
    await done;
    expect([...seen.keys()].sort()).toEqual([0, 1, 2, 3, 4]);
    // Message 3 was failed once and delivered again.
    expect(seen.get(3)!.length).toBeGreaterThanOrEqual(2);
    // The message the dead worker held came back with a higher delivery count.
    expect([...seen.values()].some((counts) => Math.max(...counts) >= 2 && counts !== seen.get(3))).toBe(
      true,
    );
  });

  it('hands the messages in hand back at once when asked, not after the ack wait', async () => {
    for (let i = 0; i < 6; i++) await kit.publish('work.handback', { i }, `handback-${i}`);
    // An ack wait far longer than this test may take: only a hand-back brings the messages back in time.
    const spec = {
      stream: 'WORK',
      durable: 'handback',
      filterSubject: 'work.handback',
      ackWaitMs: 600_000,
      concurrency: 3,
    };
    const stopping = await MessageBus.connect({ url, namespace: bus.ns.prefix, name: 'stopping' });
    const held: number[] = [];
    const signals: AbortSignal[] = [];
    const stoppingWorker = await new JetStreamKit(stopping).consume<{ i: number }>(
      spec,
      ({ payload, signal }) => {
        held.push(payload.i);
        signals.push(signal);
        return new Promise<never>(() => undefined);
      },
      () => undefined,
    );
    await eventually(async () => expect(held).toHaveLength(3));

    const acked = new Map<number, number>();
    const other = await kit.consume<{ i: number }>(
      spec,
      async ({ payload, deliveryCount }) => {
        acked.set(payload.i, deliveryCount);
        return 'ack';
      },
      () => undefined,
    );
    try {
      await eventually(async () => expect(acked.size).toBe(3));
      expect(await stoppingWorker.handBack()).toBe(3);
      expect(signals.every((signal) => signal.aborted)).toBe(true);
      await eventually(async () => expect([...acked.keys()].sort()).toEqual([0, 1, 2, 3, 4, 5]), 600);
      for (const i of held) expect(acked.get(i)).toBe(2);
    } finally {
      await other.stop();
      await stopping.close();
    }
  });

  it('takes a pull the server never answers for lost once two heartbeats are missed, not for an error', async () => {
    // A consumer that does not exist answers no pull and sends no heartbeat: what a lost pull request looks like.
    const ghost = kit.js.consumers.getConsumerFromInfo({
      stream_name: 'GHOST',
      name: 'ghost',
      config: { durable_name: 'ghost', ack_policy: AckPolicy.Explicit },
    } as ConsumerInfo);
    const outcome = await (async () => {
      const batch = await ghost.fetch({
        max_messages: 1,
        expires: 30_000,
        idle_heartbeat: PULL_HEARTBEAT_MS,
      });
      for await (const msg of batch) return { message: msg.seq };
      return { ended: true };
    })().catch((err: unknown) => ({ err }));
    expect(outcome).toHaveProperty('err');
    expect(pullLost((outcome as { err: unknown }).err)).toBe(true);
    expect(pullLost(new Error('consumer not found'))).toBe(false);
  });

  it('stores and reads back a multi-megabyte object as a stream', async () => {
    const store = await kit.objectStore('files');
    const data = randomBytes(3 * 1024 * 1024);
    const source = new ReadableStream<Uint8Array>({
      start(controller) {
        for (let off = 0; off < data.length; off += 256 * 1024)
          controller.enqueue(data.subarray(off, off + 256 * 1024));
        controller.close();
      },
    });
    const info = await store.put({ name: 'upload-1' }, source);
    expect(info.size).toBe(data.length);
    const back = await store.getBlob('upload-1');
    expect(Buffer.from(back!).equals(data)).toBe(true);
  });

  it('reads an object of several chunks back whole, also from a bucket that does not allow direct gets', async () => {
    const data = randomBytes(1_300_000); // three 512 KiB chunks, the last one short
    const source = () =>
      new ReadableStream<Uint8Array>({
        start(controller) {
          controller.enqueue(data);
          controller.close();
        },
      });
    const read = async (bucket: string): Promise<Buffer> => {
      const object = await kit.getObject(bucket, 'several-chunks');
      return Buffer.from(await new Response(object!.data).arrayBuffer());
    };
    await kit.putObject(await kit.objectStore('files'), 'several-chunks', source());
    expect((await read('files')).equals(data)).toBe(true);

    // A bucket whose stream answers message gets only through its leader (as one made by an older client).
    const leaderOnly = await kit.objectStore('leader-only');
    const jsm = await kit.jsm();
    const stream = `OBJ_${bus.ns.resource('leader-only')}`;
    const { config } = await jsm.streams.info(stream);
    await jsm.streams.update(stream, { ...config, allow_direct: false });
    await kit.putObject(leaderOnly, 'several-chunks', source());
    expect((await read('leader-only')).equals(data)).toBe(true);
  });

  it('reads every object of a bucket from its stream, not the deleted ones', async () => {
    const store = await kit.objectStore('listed');
    for (const name of ['a', 'b', 'c']) await store.putBlob({ name }, randomBytes(1024));
    await store.delete('b');
    const infos = await kit.objectInfos('listed');
    expect(infos.map((info) => info.name).sort()).toEqual(['a', 'c']);
    expect(new Set(infos.map((info) => info.nuid))).toEqual(
      new Set((await store.list()).map((info) => info.nuid)),
    );
  });

  it('removes what a put left behind when its process died, once idle, and nothing else', async () => {
    const store = await kit.objectStore('files');
    const kept = randomBytes(300 * 1024);
    await store.putBlob({ name: 'kept' }, kept);

    // A process that starts a put, gets two chunks stored, and dies before the put finishes.
    const doomed = await MessageBus.connect({ url, namespace: bus.ns.prefix, name: 'doomed-put' });
    const doomedStore = await new JetStreamKit(doomed).objectStore('files');
    let feed!: ReadableStreamDefaultController<Uint8Array>;
    const source = new ReadableStream<Uint8Array>({
      start(controller) {
        feed = controller;
        controller.enqueue(randomBytes(300 * 1024)); // 128 KiB chunks: two stored, the rest held back
      },
    });
    const put = doomedStore.put({ name: 'never-finished' }, source).catch(() => undefined);
    const jsm = await kit.jsm();
    const stream = `OBJ_${bus.ns.resource('files')}`;
    const chunkSubjects = async () =>
      Object.keys(
        (await jsm.streams.info(stream, { subjects_filter: `$O.${bus.ns.resource('files')}.C.>` })).state
          .subjects ?? {},
      );
    const before = (await chunkSubjects()).length;
    // Vitest's own poll: `eventually` is out of reach here, as the testing library imports this one.
    await expect
      .poll(async () => (await chunkSubjects()).length, { timeout: 30_000, interval: 50 })
      .toBe(before + 1);
    await doomed.connection.close();
    feed.error(new Error('the process died'));
    await put;
    expect(await store.info('never-finished')).toBeNull();

    // Still fresh: it could be a put in progress.
    expect(await kit.removePartialObjects('files', 3_600_000)).toBe(0);
    expect((await chunkSubjects()).length).toBe(before + 1);
    // Idle long enough (here: at all): removed; the stored objects keep every chunk.
    expect(await kit.removePartialObjects('files', 0)).toBe(1);
    expect((await chunkSubjects()).length).toBe(before);
    expect(Buffer.from((await store.getBlob('kept'))!).equals(kept)).toBe(true);
    expect(await kit.removePartialObjects('files', 0)).toBe(0);
  });

  it('tells how many bytes a bucket holds, which a deleted object gives back', async () => {
    const store = await kit.objectStore('measured');
    const empty = await kit.bucketBytes('measured');
    await store.putBlob({ name: 'data' }, randomBytes(200 * 1024));
    const full = await kit.bucketBytes('measured');
    expect(full - empty).toBeGreaterThanOrEqual(200 * 1024);
    await store.delete('data');
    // Only the deleted object's marker stays.
    expect((await kit.bucketBytes('measured')) - empty).toBeLessThan(1024);
  });
});

describe('messaging: request ids across hops, request latency and consumer lag (real NATS)', () => {
  let bus: MessageBus;
  let kit: JetStreamKit;
  const timings: Array<{ subject: string; outcome: string; seconds: number }> = [];

  beforeAll(async () => {
    bus = await MessageBus.connect({
      url,
      namespace: ns(),
      name: 'trace',
      requestTimeoutMs: 500,
      onRequestDone: (subject, outcome, seconds) => timings.push({ subject, outcome, seconds }),
    });
    kit = new JetStreamKit(bus);
    await kit.ensureStream({ name: 'TRACE', subjects: ['trace.>'], retention: 'workqueue' });
  });
  afterAll(async () => {
    await kit?.deleteNamespaceStreams();
    await bus?.close();
  });

  it("hands a request's id on to the requests and JetStream messages its handler causes", async () => {
    const seenByCredits: string[] = [];
    bus.serve(Subjects.creditsPing, {
      queue: 'credits',
      parse: pass,
      handler: async () => {
        seenByCredits.push(currentRequestId() ?? 'none');
        return { service: 'credits', ok: true };
      },
    });
    bus.serve(Subjects.filesPing, {
      queue: 'file-jobs',
      parse: pass,
      handler: async () => {
        // Neither names the id: both take the one of the message being handled.
        await bus.request(Subjects.creditsPing, {});
        await kit.publish('trace.work', { n: 1 });
        return { service: 'file-jobs', ok: true };
      },
    });
    await bus.connection.flush();
    await bus.request(Subjects.filesPing, {}, { requestId: 'trace-req-1' });
    expect(seenByCredits).toEqual(['trace-req-1']);

    const consumed = await new Promise<{ requestId: string; current: string | undefined }>((resolve) => {
      void kit.consume(
        { stream: 'TRACE', durable: 'tracer', filterSubject: 'trace.work', ackWaitMs: 5_000, concurrency: 1 },
        async ({ requestId }) => {
          resolve({ requestId, current: currentRequestId() });
          return 'ack';
        },
        () => undefined,
      );
    });
    expect(consumed).toEqual({ requestId: 'trace-req-1', current: 'trace-req-1' });
    // Outside any handler there is no current id, and a request makes a fresh one.
    expect(currentRequestId()).toBeUndefined();
  });

  it('names the request on the reply too', async () => {
    const reply = await bus.connection.request(bus.ns.subject(Subjects.creditsPing), encodeJson({}), {
      timeout: 2_000,
      headers: requestHeaders('trace-reply'),
    });
    expect(requestIdOf(reply)).toBe('trace-reply');
  });

  it('reports every request with its subject, outcome and duration', async () => {
    timings.length = 0;
    await bus.request(Subjects.creditsPing, {});
    await expect(bus.request(Subjects.verifierPing, {})).rejects.toMatchObject({
      code: 'SERVICE_UNAVAILABLE',
    });
    expect(timings.map(({ subject, outcome }) => ({ subject, outcome }))).toEqual([
      { subject: Subjects.creditsPing, outcome: 'ok' },
      { subject: Subjects.verifierPing, outcome: 'SERVICE_UNAVAILABLE' },
    ]);
    expect(timings.every((t) => t.seconds >= 0)).toBe(true);
  });

  it('reports the lag of the consumers this process works: waiting and in hand', async () => {
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    const handle = await kit.consume(
      { stream: 'TRACE', durable: 'slow', filterSubject: 'trace.slow', ackWaitMs: 30_000, concurrency: 1 },
      async () => {
        await held;
        return 'ack';
      },
      () => undefined,
    );
    for (let i = 0; i < 3; i++) await kit.publish('trace.slow', { i });
    await eventually(async () => {
      expect((await kit.consumerLag()).find((l) => l.consumer === 'slow')).toEqual({
        stream: 'TRACE',
        consumer: 'slow',
        pending: 2,
        ackPending: 1,
      });
    });
    release();
    await eventually(async () => {
      const lag = (await kit.consumerLag()).find((l) => l.consumer === 'slow');
      expect(lag).toMatchObject({ pending: 0, ackPending: 0 });
    });
    await handle.stop();
    expect((await kit.consumerLag()).some((l) => l.consumer === 'slow')).toBe(false);
  });
});
