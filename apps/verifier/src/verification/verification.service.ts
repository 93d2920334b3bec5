import { Inject, Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import {
  type AccountId,
  type BilledVerificationResult,
  type ChunkMessage,
  CLOSE_USED_MAX,
  DomainError,
  type PackedChunkItem,
  packResultFields,
  RESERVE_MANY_MAX,
  type ReserveOutcomeReply,
  type ReserveRequest,
  Subjects,
  type VerificationResult,
  type VerifyBulkReply,
  type VerifyBulkRequest,
  type VerifySingleRequest,
} from '@emailverify/contracts';
import { currentRequestId, fromErrorBody, MessageBus } from '@emailverify/messaging';
import { Batches, LOGGER } from '@emailverify/service-kit';
import { parseAddress, VerificationEngine, type VerifyOptions } from '@emailverify/verification';
import type { Logger } from 'pino';
import type { Counter } from 'prom-client';
import { cacheable, creditsFor } from './billing';
import { VERIFIER_CONFIG, type VerifierConfig } from '../config';
import { VerifierMetrics } from '../verifier.metrics';
import { ResultsRepository } from './results.repository';

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

/** A reservation to hold, or one used in full to close. */
type CreditOp = {
  requestId?: string;
} & (
  | { reserve: ReserveRequest; close?: undefined }
  | { close: { accountId: AccountId; idempotencyKey: string }; reserve?: undefined }
);

/** Addresses one cache lookup or store statement takes at most (a bulk request's are never split). */
const STORE_BATCH_MAX = 1_000;

/**
 * Single and bulk verification with the result cache and billing: credits are reserved before any work (so a
 * short balance means nothing is verified) and settled after, charging what `creditsFor` says.
 */
/** A result waiting to be stored, with the time it was verified (the store may come later). */
interface TimedResult {
  result: VerificationResult;
  verifiedAt: number;
}

@Injectable()
export class VerificationService {
  /** Settlements and result stores under way that no reply waits for. */
  private readonly pending = new Set<Promise<void>>();
  /** The store under way of each address's result, awaited before the cache is asked about it. */
  private readonly saving = new Map<string, Promise<void>>();
  /**
   * Credits work of concurrent requests, sent together: reservations (credits' reservations.create: one message
   * and statement) with the reservations used in full that ended meanwhile closed in the same statement, or,
   * when no reservation waits, those alone (close-used).
   */
  private readonly creditOps: Batches<CreditOp, ReserveOutcomeReply | undefined>;
  /** Result stores of concurrent requests, one statement a batch (MX-only and SMTP-checked apart). */
  private readonly stores: Record<'mx' | 'smtp', Batches<TimedResult>>;
  /** Cache lookups of concurrent single and bulk requests, one statement a batch. */
  private readonly lookups: Record<'mx' | 'smtp', Batches<string, VerificationResult | undefined>>;

  private readonly options: VerificationServiceOptions;
  private readonly outcomes?: Counter<'status' | 'reason'>;

  constructor(
    private readonly engine: VerificationEngine,
    private readonly results: ResultsRepository,
    @Inject(MessageBus) private readonly credits: Credits,
    @Inject(LOGGER) private readonly logger: Pick<Logger, 'warn'>,
    @Inject(VERIFIER_CONFIG) config: Readonly<VerifierConfig>,
    @Inject(VerifierMetrics) metrics?: Pick<VerifierMetrics, 'outcomes'>,
  ) {
    this.options = {
      cacheTtlHours: config.RESULT_CACHE_TTL_HOURS,
      bulkMax: config.BULK_MAX_EMAILS,
      creditHoldSeconds: config.CREDIT_HOLD_SECONDS,
      bulkConcurrency: config.VERIFY_BULK_CONCURRENCY,
      chunkConcurrency: config.FILE_VERIFY_CONCURRENCY,
    };
    this.outcomes = metrics?.outcomes;
    this.creditOps = new Batches(
      async (ops) => {
        const reservations = ops.flatMap((op) => (op.reserve ? [op.reserve] : []));
        const close = ops.flatMap((op) => (op.close ? [op.close] : []));
        // A batch of one request's work is that request's; one of several is nobody's in particular.
        const requestId = (ops.length === 1 ? ops[0]!.requestId : undefined) ?? randomUUID();
        if (reservations.length === 0) {
          await this.credits.request(Subjects.creditsCloseUsed, { reservations: close }, { requestId });
          return ops.map(() => undefined);
        }
        const { outcomes } = await this.credits.request(
          Subjects.creditsReserveMany,
          close.length > 0 ? { reservations, close } : { reservations },
          { requestId },
        );
        let at = 0;
        return ops.map((op) => (op.reserve ? outcomes[at++] : undefined));
      },
      Math.min(RESERVE_MANY_MAX, CLOSE_USED_MAX),
    );
    const store = (checkSmtp: boolean) =>
      new Batches<TimedResult>((timed) => {
        // An address verified by two requests at once is stored once (the later result).
        const latest = [...new Map(timed.map((t) => [t.result.email, t])).values()];
        return this.results.save(
          latest.map((t) => t.result),
          checkSmtp,
          this.options.cacheTtlHours,
          latest.map((t) => t.verifiedAt),
        );
      }, STORE_BATCH_MAX);
    this.stores = { mx: store(false), smtp: store(true) };
    const lookup = (checkSmtp: boolean) =>
      new Batches<string, VerificationResult | undefined>(async (emails) => {
        const found = await this.results.findFresh(emails, checkSmtp);
        return emails.map((email) => found.get(email));
      }, STORE_BATCH_MAX);
    this.lookups = { mx: lookup(false), smtp: lookup(true) };
  }

  async verifySingle(req: VerifySingleRequest, requestId: string): Promise<BilledVerificationResult> {
    const parsed = parseAddress(req.email);
    if (!parsed.ok) throw new DomainError('INVALID_EMAIL', parsed.message, { reason: parsed.reason });
    if (!req.forceRefresh) {
      await this.savesOf([parsed.email]);
      const cached = (await this.findFresh([parsed.email], req.checkSmtp)).get(parsed.email);
      // The reply shows the Gravatar and domain-age fields, which a cached result of a file job or a bulk
      // request was verified without: they are looked up now (the engine keeps its answers for a while).
      if (cached) return { ...(await this.engine.addExtras([cached]))[0]!, creditsUsed: 0, cached: true };
    }
    const [billed] = await this.verifyFresh(
      req.accountId,
      [parsed.email],
      { checkSmtp: req.checkSmtp, enrich: true },
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
    await this.savesOf(wellFormed);
    const cached = await this.findFresh(wellFormed, req.checkSmtp);
    const toVerify = wellFormed.filter((email) => !cached.has(email));
    // A bulk item shows no Gravatar or domain-age field, so none is looked up.
    const fresh = await this.verifyFresh(
      req.accountId,
      toVerify,
      { checkSmtp: req.checkSmtp },
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
   * result carries what it costs (cached results nothing) and file-jobs settles the total at the end. Only a
   * job uploaded with `enrich` gets the Gravatar and domain-age lookups (its result file shows them), for its
   * cached results too; they cost no credit beyond the result's own.
   */
  async verifyChunk(chunk: ChunkMessage): Promise<PackedChunkItem[]> {
    const enrich = chunk.enrich === true;
    await this.savesOf(chunk.emails);
    const cached = await this.results.findFreshWithTime(chunk.emails, chunk.checkSmtp);
    const jobCreated = Date.parse(chunk.jobCreatedAt);
    const toVerify = chunk.emails.filter((email) => !cached.has(email));
    const verified = await this.engine.verifyMany(
      toVerify,
      { checkSmtp: chunk.checkSmtp, enrich },
      // file-jobs keyed the chunk's addresses by their normalised form (parseAddress) when it created the job.
      { concurrency: this.options.chunkConcurrency, normalised: true },
    );
    this.count(verified);
    await this.results.save(verified.filter(cacheable), chunk.checkSmtp, this.options.cacheTtlHours);
    const pack = (r: VerificationResult, credits: number, email: string) =>
      packResultFields(r, credits, email, enrich);
    // Nothing was cached (the usual case in a new file): the results are in the chunk's order already.
    if (cached.size === 0) return verified.map((r, i) => pack(r, creditsFor(r), toVerify[i]!));
    const hits = await this.cachedForChunk(cached, enrich);
    const fresh = new Map(verified.map((r, i) => [toVerify[i]!, r]));
    return chunk.emails.map((email) => {
      const hit = cached.get(email);
      // Verified before the job existed: a cache hit, free. Verified since: this job's own work (an earlier
      // delivery of this chunk cached it before its worker died), charged like a fresh result.
      // The key is the address as file-jobs stored it, so the result row finds its way back.
      if (hit) {
        const result = hits.get(email)!;
        return pack(result, hit.verifiedAt.getTime() < jobCreated ? 0 : creditsFor(result), email);
      }
      const r = fresh.get(email)!;
      return pack(r, creditsFor(r), email);
    });
  }

  /** A chunk's cached results, with the Gravatar and domain-age fields looked up when its job is enriched. */
  private async cachedForChunk(
    cached: ReadonlyMap<string, { result: VerificationResult }>,
    enrich: boolean,
  ): Promise<Map<string, VerificationResult>> {
    const emails = [...cached.keys()];
    const results = emails.map((email) => cached.get(email)!.result);
    const shown = enrich
      ? await this.engine.addExtras(results, { concurrency: this.options.chunkConcurrency })
      : results;
    return new Map(emails.map((email, i) => [email, shown[i]!]));
  }

  /** Outcome metrics, one increment per status and reason (a chunk holds hundreds of the same few). */
  private count(verified: readonly VerificationResult[]): void {
    if (!this.outcomes || verified.length === 0) return;
    // By status, then reason: both are constants, so nothing is built per result to look them up.
    const tally = new Map<VerificationResult['status'], Map<VerificationResult['reason'], number>>();
    for (const r of verified) {
      let reasons = tally.get(r.status);
      if (!reasons) tally.set(r.status, (reasons = new Map()));
      reasons.set(r.reason, (reasons.get(r.reason) ?? 0) + 1);
    }
    for (const [status, reasons] of tally)
      for (const [reason, n] of reasons) this.outcomes.inc({ status, reason }, n);
  }

  /** Waits for the settlements and result stores still under way (at shutdown, before the bus drains). */
  async drain(): Promise<void> {
    await Promise.all([...this.pending]);
  }

  /**
   * Reserves one credit per address, verifies, and settles what was used; results that may be cached are
   * stored. The reservation goes out with those of the other requests that started meanwhile (one message and
   * statement for all). A settlement that refunds nothing changes no balance (the reservation took the
   * credits), so the reply does not wait for it, and it goes out with the next reservations (closed in their
   * statement), or when none waits with those of other requests that ended meanwhile (one close-used message);
   * one that refunds is awaited, so the balance a client reads after the reply is final.
   * The reply does not wait for the result store either (the cache is a saving), which is batched the same
   * way: a lookup in this process waits for the stores under way of its addresses, so a client asking again
   * gets the cached result.
   */
  private async verifyFresh(
    accountId: AccountId,
    emails: readonly string[],
    options: VerifyOptions,
    idempotencyKey: string,
  ): Promise<BilledVerificationResult[]> {
    const { checkSmtp } = options;
    if (emails.length === 0) return [];
    const reserved = (await this.creditOps.add({
      reserve: {
        accountId,
        idempotencyKey,
        amount: emails.length,
        holdSeconds: this.options.creditHoldSeconds,
      },
      requestId: currentRequestId(),
    }))!;
    if (!reserved.ok) throw fromErrorBody(reserved.error);
    let verified: VerificationResult[];
    try {
      verified = await this.engine.verifyMany(emails, options, {
        concurrency: this.options.bulkConcurrency,
      });
    } catch (err) {
      await this.settle(accountId, idempotencyKey, 0);
      throw err;
    }
    const used = verified.reduce((sum, r) => sum + creditsFor(r), 0);
    this.count(verified);
    this.saveLater(verified.filter(cacheable), checkSmtp);
    if (used === emails.length)
      void this.later(
        this.creditOps
          .add({ close: { accountId, idempotencyKey }, requestId: currentRequestId() })
          .then(() => undefined),
        { idempotencyKey },
        'settling credits failed; the reservation is refunded when its hold runs out',
      );
    else await this.settle(accountId, idempotencyKey, used);
    return verified.map((r) => ({ ...r, creditsUsed: creditsFor(r), cached: false }));
  }

  private async settle(accountId: AccountId, idempotencyKey: string, used: number): Promise<void> {
    await this.credits.request(Subjects.creditsSettle, { accountId, idempotencyKey, used });
  }

  private saveLater(results: readonly VerificationResult[], checkSmtp: boolean): void {
    if (results.length === 0) return;
    const verifiedAt = Date.now();
    const saved = this.later(
      this.stores[checkSmtp ? 'smtp' : 'mx']
        .addAll(results.map((result) => ({ result, verifiedAt })))
        .then(() => undefined),
      { addresses: results.length },
      'storing results in the cache failed; they are verified again when asked for',
    );
    for (const r of results) this.saving.set(r.email, saved);
    void saved.then(() => {
      for (const r of results) if (this.saving.get(r.email) === saved) this.saving.delete(r.email);
    });
  }

  /**
   * Cached results of these addresses, looked up in one statement with those of the other requests that asked
   * meanwhile.
   */
  private async findFresh(
    emails: readonly string[],
    checkSmtp: boolean,
  ): Promise<Map<string, VerificationResult>> {
    if (emails.length === 0) return new Map();
    const found = await this.lookups[checkSmtp ? 'smtp' : 'mx'].addAll(emails);
    const fresh = new Map<string, VerificationResult>();
    emails.forEach((email, i) => {
      if (found[i]) fresh.set(email, found[i]);
    });
    return fresh;
  }

  /** Waits for the result stores under way of these addresses, if any. */
  private async savesOf(emails: readonly string[]): Promise<void> {
    if (this.saving.size === 0) return;
    const under = new Set<Promise<void>>();
    for (const email of emails) {
      const saved = this.saving.get(email);
      if (saved) under.add(saved);
    }
    if (under.size > 0) await Promise.all(under);
  }

  /** Work no reply waits for: a failure is logged (without addresses), and shutdown waits for it (drain). */
  private later(work: Promise<void>, context: Record<string, unknown>, failure: string): Promise<void> {
    const tracked: Promise<void> = work
      .catch((err: unknown) => this.logger.warn({ err, ...context }, failure))
      .finally(() => this.pending.delete(tracked));
    this.pending.add(tracked);
    return tracked;
  }
}
