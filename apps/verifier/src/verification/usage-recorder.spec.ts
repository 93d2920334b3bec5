import { type AccountId, Subjects, type UsageRecordRequest } from '@emailverify/contracts';
import { describe, expect, it } from 'vitest';
import { UsageRecorder } from './usage-recorder';

const A = '6f1c2b1e-6a1d-4c57-9a43-2d1f1f3b9a10' as AccountId;
const B = '0b8f3a52-93a4-4f0e-8d63-0e5f1d2c7a11' as AccountId;

/** A bus whose first request waits until the test lets it answer; records every request. */
function standInBus() {
  const sent: UsageRecordRequest[] = [];
  let release: (() => void) | undefined;
  let fail = false;
  const bus = {
    request: async (subject: string, payload: unknown) => {
      expect(subject).toBe(Subjects.creditsUsageRecord);
      sent.push(payload as UsageRecordRequest);
      if (sent.length === 1) await new Promise<void>((resolve) => (release = resolve));
      if (fail) throw new Error('credits unavailable');
      return { recorded: true };
    },
  };
  return {
    bus: bus as never,
    sent,
    release: () => release?.(),
    failing: () => (fail = true),
  };
}

describe('UsageRecorder', () => {
  it('counts each request by status, and sends those that end meanwhile together, added up', async () => {
    const { bus, sent, release } = standInBus();
    const warnings: unknown[] = [];
    const recorder = new UsageRecorder(bus, { warn: (...args: unknown[]) => void warnings.push(args) });
    recorder.count(A, 'live', [{ status: 'valid' }]);
    // The first record is under way: these three wait and go out as one.
    recorder.count(A, 'live', [{ status: 'valid' }, { status: 'invalid' }, { status: 'valid' }]);
    recorder.count(B, 'sandbox', [{ status: 'valid' }]);
    recorder.count(A, 'live', []);
    release();
    await recorder.drain();
    expect(sent.map((r) => r.entries)).toEqual([
      [{ accountId: A, mode: 'live', status: 'valid', count: 1 }],
      [
        { accountId: A, mode: 'live', status: 'valid', count: 2 },
        { accountId: A, mode: 'live', status: 'invalid', count: 1 },
        { accountId: B, mode: 'sandbox', status: 'valid', count: 1 },
      ],
    ]);
    // Each record has a key of its own, so the credits service counts each once.
    expect(new Set(sent.map((r) => r.key)).size).toBe(2);
    expect(warnings).toEqual([]);
  });

  it('logs a record the credits service did not take, without failing the request that counted it', async () => {
    const { bus, release, failing } = standInBus();
    const warnings: unknown[][] = [];
    const recorder = new UsageRecorder(bus, { warn: (...args: unknown[]) => void warnings.push(args) });
    failing();
    recorder.count(A, 'live', [{ status: 'unknown' }]);
    release();
    await recorder.drain();
    await new Promise((resolve) => setImmediate(resolve));
    expect(warnings).toHaveLength(1);
    expect(JSON.stringify(warnings[0])).not.toContain('@');
  });
});
