import { Inject, Injectable } from '@nestjs/common';
import {
  assertBulkSize,
  type BilledDomainReport,
  type BilledVerificationResult,
  type ChunkMessage,
  DomainError,
  type PackedChunkItem,
  packResultFields,
  type VerifyBulkReply,
  type VerifyBulkRequest,
  type VerifyDomainRequest,
  type VerifySingleRequest,
} from '@emailverify/contracts';
import { parseAddress, sandboxDomainReport, sandboxVerdict } from '@emailverify/verification';
import { VERIFIER_CONFIG, type VerifierConfig } from '../config';

/**
 * What a sandbox key's requests get (docs/api.md, "Sandbox"): answers from the sandbox table of
 * libs/verification, free. Apart from the verification and domain-report services on purpose: a sandbox request
 * never reaches the engine (no DNS, SMTP or HTTP), the result cache (neither read nor written) or credits.
 */
@Injectable()
export class SandboxService {
  private readonly bulkMax: number;

  constructor(@Inject(VERIFIER_CONFIG) config: Readonly<VerifierConfig>) {
    this.bulkMax = config.BULK_MAX_EMAILS;
  }

  /** As VerificationService.verifySingle refuses it, malformed input is INVALID_EMAIL. */
  single(req: VerifySingleRequest): BilledVerificationResult {
    const parsed = parseAddress(req.email);
    if (!parsed.ok) throw new DomainError('INVALID_EMAIL', parsed.message, { reason: parsed.reason });
    return free(sandboxVerdict(parsed.email, { checkSmtp: req.checkSmtp }));
  }

  /** Every item answered (a malformed one invalid, as in a live bulk), in order; nothing charged. */
  bulk(req: VerifyBulkRequest): VerifyBulkReply {
    const started = performance.now();
    assertBulkSize(req.emails.length, this.bulkMax);
    const results = req.emails.map((email) => free(sandboxVerdict(email, { checkSmtp: req.checkSmtp })));
    return { results, creditsUsed: 0, processTimeMs: Math.round(performance.now() - started) };
  }

  /** The report of a domain whose first label chooses the outcome; INVALID_REQUEST when it is not a domain. */
  domain(req: VerifyDomainRequest): BilledDomainReport {
    return {
      ...sandboxDomainReport(req.domain, { checkSmtp: req.checkSmtp }),
      creditsUsed: 0,
      cached: false,
    };
  }

  /**
   * A sandbox job's chunk: each address (normalised by file-jobs) answered from the table, at no cost, keyed by
   * the address as file-jobs stored it.
   */
  chunk(chunk: ChunkMessage): PackedChunkItem[] {
    const enrich = chunk.enrich === true;
    return chunk.emails.map((email) =>
      packResultFields(
        sandboxVerdict(email, { checkSmtp: chunk.checkSmtp, normalised: true }),
        0,
        email,
        enrich,
      ),
    );
  }
}

function free<T>(result: T): T & { creditsUsed: number; cached: boolean } {
  return { ...result, creditsUsed: 0, cached: false };
}
