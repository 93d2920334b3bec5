import { Inject, Injectable } from '@nestjs/common';
import {
  assertBulkSize,
  type BilledDomainReport,
  type BilledVerificationResult,
  DomainError,
  type RpcReply,
  type RpcRequest,
  Subjects,
  type VerifyBulkReply,
} from '@emailverify/contracts';
import { MessageBus } from '@emailverify/messaging';
import {
  assertValidAddress,
  assertValidDomain,
  checkDisposable,
  type DisposableCheck,
  sandboxDisposable,
} from '@emailverify/verification';
import { askForAccount } from '../common/account-request';
import type { AuthContext } from '../common/http/request-context';
import { GATEWAY_CONFIG, type GatewayConfig } from '../config';
import type { DisposableDto, VerifyBulkDto, VerifyDomainDto, VerifySingleDto } from './dto/verify.dto';

/** Verification requests of the API: checked at the edge, verified by the verifier service over NATS. */
@Injectable()
export class VerifyService {
  constructor(
    private readonly bus: MessageBus,
    @Inject(GATEWAY_CONFIG) private readonly config: Readonly<GatewayConfig>,
  ) {}

  async single(auth: AuthContext, dto: VerifySingleDto): Promise<BilledVerificationResult> {
    // Bad syntax is answered here, before any hop or charge.
    const address = assertValidAddress(dto.email);
    return this.ask(auth, Subjects.verifySingle, {
      email: address.email,
      checkSmtp: dto.check_smtp ?? false,
      forceRefresh: dto.force_refresh ?? false,
    });
  }

  async bulk(auth: AuthContext, dto: VerifyBulkDto): Promise<VerifyBulkReply> {
    assertBulkSize(dto.emails.length, this.config.BULK_MAX_EMAILS);
    return this.ask(auth, Subjects.verifyBulk, { emails: dto.emails, checkSmtp: dto.check_smtp ?? false });
  }

  async domain(auth: AuthContext, dto: VerifyDomainDto): Promise<BilledDomainReport> {
    // What is not a domain is answered here, before any hop or charge; the verifier gets the ASCII form.
    const domain = assertValidDomain(dto.domain);
    return this.ask(auth, Subjects.verifyDomain, { domain, checkSmtp: dto.check_smtp ?? false });
  }

  /**
   * The free disposable check: an in-memory lookup in the gateway itself, no hop and no credits. A sandbox key's
   * answer comes from the sandbox table (the same syntax check first).
   */
  disposable(auth: AuthContext, dto: DisposableDto): DisposableCheck & { checkedAt: string } {
    if (dto.check_smtp !== undefined) {
      throw new DomainError('INVALID_REQUEST', 'check_smtp is not supported on /verify/disposable', {
        field: 'check_smtp',
      });
    }
    const check = auth.mode === 'sandbox' ? sandboxDisposable(dto.email) : checkDisposable(dto.email);
    return { ...check, checkedAt: new Date().toISOString() };
  }

  /** Asks the verifier on behalf of the key's account (a sandbox key's ask says so), within the deadline. */
  private ask<S extends VerifySubject>(
    auth: AuthContext,
    subject: S,
    request: Omit<RpcRequest<S>, 'accountId' | 'sandbox'>,
  ): Promise<RpcReply<S>> {
    // The spread is the request of S but its account; TypeScript does not follow Omit through the generic.
    const payload = { ...request, ...sandboxOf(auth) } as Omit<RpcRequest<S>, 'accountId'>;
    return askForAccount(this.bus, auth, subject, payload, {
      timeoutMs: this.config.VERIFY_TIMEOUT_MS,
    }).catch(asTimeout);
  }
}

type VerifySubject = typeof Subjects.verifySingle | typeof Subjects.verifyBulk | typeof Subjects.verifyDomain;

/** What tells the verifier that a sandbox key asks (nothing for a live key). */
function sandboxOf(auth: AuthContext): { sandbox?: true } {
  return auth.mode === 'sandbox' ? { sandbox: true } : {};
}

/** A verifier that answers too late is a verification timeout (504), not a missing service (503). */
function asTimeout(err: unknown): never {
  if (err instanceof DomainError && err.code === 'SERVICE_UNAVAILABLE' && err.details?.cause === 'timeout') {
    throw new DomainError('TIMEOUT', 'The verification did not finish within the deadline; try again');
  }
  throw err;
}
