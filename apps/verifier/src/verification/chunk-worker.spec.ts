import {
  type AccountId,
  type ChunkMessage,
  chunkDoneSubject,
  chunkMessageId,
  type ChunkResultMessage,
  chunkItemsOf,
  decodeChunkResultMessage,
  type PackedChunkItem,
  unpackChunkItem,
} from '@emailverify/contracts';
import type { JetStreamKit, JsDelivery, JsHandlerResult } from '@emailverify/messaging';
import pino from 'pino';
import { beforeEach, describe, expect, it } from 'vitest';
import { verifierConfigSchema } from '../config';
import type { VerifierMetrics } from '../verifier.metrics';
import { ChunkWorker } from './chunk-worker';
import type { SandboxService } from './sandbox.service';
import type { VerificationService } from './verification.service';

// The verifier's decision on a chunk over a stand-in JetStream: report it verified, hand it back for another
// delivery, or give it up as failed on its last. Deliveries and redeliveries themselves are messaging's int-spec.

const MAX_DELIVERIES = 3;
const chunk: ChunkMessage = {
  jobId: '0b7c1e9a-0000-4000-8000-000000000001',
  accountId: '6f1c2b4e-0000-4000-8000-0000000000aa' as AccountId,
  chunk: 4,
  checkSmtp: true,
  jobCreatedAt: '2026-11-29T10:00:00.000Z',
  emails: ['jane@warn.test', 'bob@warn.test'],
};
const valid = (email: string): PackedChunkItem => [
  email,
  'valid',
  'accepted',
  0.99,
  0,
  'warn.test',
  [],
  '',
  1,
];

describe('ChunkWorker', () => {
  let handler: (delivery: JsDelivery<ChunkMessage>) => Promise<JsHandlerResult>;
  let published: Array<{ subject: string; message: ChunkResultMessage; msgId: string }>;
  let verify: (chunk: ChunkMessage) => Promise<PackedChunkItem[]>;

  beforeEach(async () => {
    published = [];
    verify = async (c) => c.emails.map(valid);
    const kit = {
      ensureStream: async () => undefined,
      consume: async (_spec: unknown, h: typeof handler) => {
        handler = h;
        return { stop: async () => undefined, handBack: async () => 0 };
      },
      publishEncoded: async (subject: string, data: Uint8Array, msgId: string) => {
        published.push({ subject, message: decodeChunkResultMessage(data), msgId });
      },
    };
    const worker = new ChunkWorker(
      kit as unknown as JetStreamKit,
      { verifyChunk: (c: ChunkMessage) => verify(c) } as VerificationService,
      {} as SandboxService,
      verifierConfigSchema.parse({ FILE_CHUNK_MAX_DELIVERIES: String(MAX_DELIVERIES) }),
      { chunks: { observe: () => undefined } } as unknown as VerifierMetrics,
      pino({ level: 'silent' }),
    );
    await worker.start();
  });

  const deliver = (deliveryCount: number, payload = chunk, signal = new AbortController().signal) =>
    handler({
      payload,
      subject: `verify.chunk.${payload.jobId}`,
      requestId: 'r1',
      deliveryCount,
      working: () => undefined,
      signal,
    });
  const itemsOf = (message: ChunkResultMessage) => chunkItemsOf(message.results.text).map(unpackChunkItem);

  it('reports a verified chunk with its results, under an id made of job and chunk', async () => {
    expect(await deliver(1)).toBe('ack');
    expect(published).toHaveLength(1);
    const [{ subject, message, msgId }] = published as [(typeof published)[0]];
    expect(subject).toBe(chunkDoneSubject(chunk.jobId));
    expect(msgId).toBe(chunkMessageId(message));
    expect(message).toMatchObject({ jobId: chunk.jobId, chunk: 4, failed: false });
    expect(itemsOf(message).map((r) => [r.email, r.status])).toEqual([
      ['jane@warn.test', 'valid'],
      ['bob@warn.test', 'valid'],
    ]);
  });

  it('hands a chunk that fails back for another delivery while deliveries remain, reporting nothing', async () => {
    verify = async () => {
      throw new Error('relation "verifier.results" does not exist');
    };
    for (let n = 1; n < MAX_DELIVERIES; n++) await expect(deliver(n)).rejects.toThrow('verifier.results');
    expect(published).toEqual([]);
  });

  it('gives a chunk up on its last delivery: every address unknown verification_failed and free', async () => {
    verify = async () => {
      throw new Error('relation "verifier.results" does not exist');
    };
    expect(await deliver(MAX_DELIVERIES)).toBe('ack');
    const [{ message }] = published as [(typeof published)[0]];
    expect(message).toMatchObject({ jobId: chunk.jobId, chunk: 4, failed: true });
    expect(message.results.counts).toMatchObject({ addresses: 2, credits: 0, statuses: { unknown: 2 } });
    expect(itemsOf(message).map((r) => [r.email, r.status, r.reason, r.creditsUsed])).toEqual([
      ['jane@warn.test', 'unknown', 'verification_failed', 0],
      ['bob@warn.test', 'unknown', 'verification_failed', 0],
    ]);
  });

  it('answers a greylisting retry given up as that retry', async () => {
    verify = async () => {
      throw new Error('no DNS');
    };
    await deliver(MAX_DELIVERIES, { ...chunk, emails: ['jane@warn.test'], retry: 'claim-7' });
    expect(published[0]!.message).toMatchObject({ failed: true, retry: 'claim-7' });
  });

  it('gives up nothing of a chunk handed back at shutdown, even on its last delivery', async () => {
    verify = async () => {
      throw new Error('stopping');
    };
    const stopping = new AbortController();
    stopping.abort();
    await expect(deliver(MAX_DELIVERIES, chunk, stopping.signal)).rejects.toThrow('stopping');
    expect(published).toEqual([]);
  });
});
