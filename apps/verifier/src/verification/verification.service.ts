import { randomUUID } from 'node:crypto';
import {
  type AccountId,
  type BilledVerificationResult,
  type ChunkMessage,
  DomainError,
  type PackedChunkItem,
  packResultFields,
  Subjects,
  type VerificationResult,
  type VerifyBulkReply,
  type VerifyBulkRequest,
  type VerifySingleRequest,
} from '@emailverify/contracts';
import type { MessageBus } from '@emailverify/messaging';
import { parseAddress, type VerificationEngine } from '@emailverify/verification';
import type { Logger } from 'pino';
import type { Counter } from 'prom-client';
import { cacheable, creditsFor } from './billing';
import type { ResultsRepository } from './results.repository';

export interface VerificationServiceOptions {
  cacheTtlHours: number;
  bulkMax: number;
  /** How long a single or bulk verification's credits stay reserved if this process dies before settling. */
  creditHoldSeconds: number;
  bulkConcurrency: number;
  /** Addresses of one file-job chunk verified at once. */
  chunkConcurrency: number;
}

type Credits = Pick<MessageBus, 'request'>;

/**
 * Single and bulk verification with the result cache and billing: credits are reserved before any work (so a
 * short balance means nothing is verified) and settled after, charging what `creditsFor` says.
 */
export class VerificationService {
  private readonly settling = new Set<Promise<void>>();

  constructor(
    private readonly engine: VerificationEngine,
    private readonly results: ResultsRepository,
    private readonly credits: Credits,
    private readonly logger: Pick<Logger, 'warn'>,
    private readonly options: VerificationServiceOptions,
    private readonly outcomes?: Counter<'status' | 'reason'>,
  ) {}

  async verifySingle(req: VerifySingleRequest, requestId: string): Promise<BilledVerificationResult> {
    const parsed = parseAddress(req.email);
    if (!parsed.ok) throw new DomainError('INVALID_EMAIL', parsed.message, { reason: parsed.reason });
    if (!req.forceRefresh) {
      const cached = (await this.results.findFresh([parsed.email], req.checkSmtp)).get(parsed.email);
      if (cached) return { ...cached, creditsUsed: 0, cached: true };
    }
    const [billed] = await this.verifyFresh(
      req.accountId,
      [parsed.email],
      req.checkSmtp,
      `single:${requestId}:${randomUUID()}`,
    );
    return billed!;
  }

  async verifyBulk(req: VerifyBulkRequest, requestId: string): Promise<VerifyBulkReply> {
    const started = performance.now();
    if (req.emails.length === 0 || req.emails.length > this.options.bulkMax) {
      throw new DomainError(
        'INVALID_REQUEST',
        `emails must hold between 1 and ${this.options.bulkMax} addresses`,
        {
          field: 'emails',
          max: this.options.bulkMax,
        },
      );
    }
    // Each distinct address is verified (and charged) once, however often the batch repeats it.
    const parsed = req.emails.map((email) => parseAddress(email));
    const wellFormed = [...new Set(parsed.flatMap((p) => (p.ok ? [p.email] : [])))];
    const cached = await this.results.findFresh(wellFormed, req.checkSmtp);
    const toVerify = wellFormed.filter((email) => !cached.has(email));
    const fresh = await this.verifyFresh(
      req.accountId,
      toVerify,
      req.checkSmtp,
      `bulk:${requestId}:${randomUUID()}`,
    );
    const freshByEmail = new Map(fresh.map((r) => [r.email, r]));

    const charged = new Set<string>();
    const syntaxFailures = await Promise.all(
      req.emails.map((input, i) =>
        parsed[i]!.ok ? undefined : this.engine.verify(input, { checkSmtp: false }),
      ),
    );
    const results: BilledVerificationResult[] = req.emails.map((_input, i) => {
      const p = parsed[i]!;
      if (!p.ok) return { ...syntaxFailures[i]!, creditsUsed: 0, cached: false };
      const hit = cached.get(p.email);
      if (hit) return { ...hit, creditsUsed: 0, cached: true };
      const result = freshByEmail.get(p.email)!;
      const first = !charged.has(p.email);
      charged.add(p.email);
      return { ...result, creditsUsed: first ? result.creditsUsed : 0 };
    });
    return {
      results,
      creditsUsed: results.reduce((sum, r) => sum + r.creditsUsed, 0),
      processTimeMs: Math.round(performance.now() - started),
    };
  }

  /**
   * A file-job chunk: the job reserved its credits when it was created, so nothing is reserved here; each
   * result carries what it costs (cached results nothing) and file-jobs settles the total at the end.
   */
  async verifyChunk(chunk: ChunkMessage): Promise<PackedChunkItem[]> {
    const cached = await this.results.findFreshWithTime(chunk.emails, chunk.checkSmtp);
    const jobCreated = Date.parse(chunk.jobCreatedAt);
    const toVerify = chunk.emails.filter((email) => !cached.has(email));
    const verified = await this.engine.verifyMany(
      toVerify,
      { checkSmtp: chunk.checkSmtp },
      // file-jobs keyed the chunk's addresses by their normalised form (parseAddress) when it created the job.
      { concurrency: this.options.chunkConcurrency, normalised: true },
    );
    this.count(verified);
    await this.results.save(verified.filter(cacheable), chunk.checkSmtp, this.options.cacheTtlHours);
    const fresh = new Map(verified.map((r, i) => [toVerify[i]!, r]));
    return chunk.emails.map((email) => {
      const hit = cached.get(email);
      // Verified before the job existed: a cache hit, free. Verified since: this job's own work (an earlier
      // delivery of this chunk cached it before its worker died), charged like a fresh result.
      // The key is the address as file-jobs stored it, so the result row finds its way back.
      if (hit)
        return packResultFields(
          hit.result,
          hit.verifiedAt.getTime() < jobCreated ? 0 : creditsFor(hit.result),
          email,
        );
      const r = fresh.get(email)!;
      return packResultFields(r, creditsFor(r), email);
    });
  }

  /** Outcome metrics, one increment per status and reason (a chunk holds hundreds of the same few). */
  private count(verified: readonly VerificationResult[]): void {
    if (!this.outcomes || verified.length === 0) return;
    const tally = new Map<
      string,
      { status: VerificationResult['status']; reason: VerificationResult['reason']; n: number }
    >();
    for (const r of verified) {
      const key = `${r.status}/${r.reason}`;
      const seen = tally.get(key);
      if (seen) seen.n += 1;
      else tally.set(key, { status: r.status, reason: r.reason, n: 1 });
    }
    for (const { status, reason, n } of tally.values()) this.outcomes.inc({ status, reason }, n);
  }

  /** Waits for the settlements still under way (at shutdown, before the bus drains). */
  async drain(): Promise<void> {
    await Promise.all([...this.settling]);
  }

  /**
   * Reserves one credit per address, verifies, stores what may be cached, and settles what was used. A
   * settlement that refunds nothing changes no balance (the reservation took the credits): the reply does not
   * wait for it. One that refunds is awaited, so the balance a client reads after the reply is final.
   */
  private async verifyFresh(
    accountId: AccountId,
    emails: readonly string[],
    checkSmtp: boolean,
    idempotencyKey: string,
  ): Promise<BilledVerificationResult[]> {
    if (emails.length === 0) return [];
    await this.credits.request(Subjects.creditsReserve, {
      accountId,
      idempotencyKey,
      amount: emails.length,
      holdSeconds: this.options.creditHoldSeconds,
    });
    let verified: VerificationResult[];
    try {
      verified = await this.engine.verifyMany(
        emails,
        { checkSmtp },
        { concurrency: this.options.bulkConcurrency },
      );
    } catch (err) {
      await this.settle(accountId, idempotencyKey, 0);
      throw err;
    }
    const used = verified.reduce((sum, r) => sum + creditsFor(r), 0);
    this.count(verified);
    const saved = this.results.save(verified.filter(cacheable), checkSmtp, this.options.cacheTtlHours);
    if (used === emails.length) {
      this.settleLater(accountId, idempotencyKey, used);
      await saved;
    } else {
      await Promise.all([this.settle(accountId, idempotencyKey, used), saved]);
    }
    return verified.map((r) => ({ ...r, creditsUsed: creditsFor(r), cached: false }));
  }

  private async settle(accountId: string, idempotencyKey: string, used: number): Promise<void> {
    await this.credits.request(Subjects.creditsSettle, { accountId, idempotencyKey, used });
  }

  /** A settlement nobody waits for; one that fails leaves the reservation to the credits sweep (a full refund). */
  private settleLater(accountId: string, idempotencyKey: string, used: number): void {
    const settling: Promise<void> = this.settle(accountId, idempotencyKey, used)
      .catch((err: unknown) =>
        this.logger.warn(
          { err, idempotencyKey },
          'settling credits failed; the reservation is refunded when its hold runs out',
        ),
      )
      .finally(() => this.settling.delete(settling));
    this.settling.add(settling);
  }
}
