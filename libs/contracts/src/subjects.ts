import type { AccountId } from './ids';
import type { ErrorBody } from './errors';
import type { ResponseStyle } from './styles';
import type { BilledDomainReport } from './domain-report';
import type { BilledVerificationResult } from './verification';
import type {
  LedgerListReply,
  LedgerListRequest,
  UsageGetRequest,
  UsageRecordReply,
  UsageRecordRequest,
  UsageReply,
} from './usage';
import type {
  FileJobCreateRequest,
  FileJobDeleteReply,
  FileJobListReply,
  FileJobListRequest,
  FileJobLocateRequest,
  FileJobRef,
  FileJobResultsReply,
  FileJobResultsRequest,
  FileJobView,
} from './file-jobs';
import type {
  Delivery,
  DeliveryListReply,
  DeliveryListRequest,
  RedeliverRequest,
  Webhook,
  WebhookCreateReply,
  WebhookCreateRequest,
  WebhookDeleteReply,
  WebhookListReply,
  WebhookListRequest,
  WebhookRef,
  WebhookRotateReply,
  WebhookUpdateRequest,
} from './webhooks';

/**
 * Every NATS subject of the suite, without the installation's namespace prefix (the messaging library adds
 * `NATS_NAMESPACE.`). Request/reply subjects are `<service>.<noun>.<verb>`.
 */
export const Subjects = {
  creditsAuthResolve: 'credits.auth.resolve',
  creditsBalanceGet: 'credits.balance.get',
  creditsReserve: 'credits.reservation.create',
  /** Many reservations in one message and one statement (a verifier's concurrent requests). */
  creditsReserveMany: 'credits.reservations.create',
  creditsSettle: 'credits.reservation.settle',
  creditsCloseUsed: 'credits.reservation.close',
  creditsAccountCreate: 'credits.account.create',
  creditsBalanceAdd: 'credits.balance.add',
  creditsKeyCreate: 'credits.key.create',
  creditsKeySetStyle: 'credits.key.update',
  creditsKeyRevoke: 'credits.key.revoke',
  creditsKeyList: 'credits.key.list',
  /** A customer revokes a key of their own account (GET/POST/DELETE /v1/keys); operators use creditsKeyRevoke. */
  creditsAccountKeyRevoke: 'credits.accountkey.revoke',
  creditsLedgerList: 'credits.ledger.list',
  creditsUsageGet: 'credits.usage.get',
  /** Verifications counted in an account's daily usage (UsageRecordRequest), from verifier and file-jobs. */
  creditsUsageRecord: 'credits.usage.record',
  creditsPing: 'credits.health.ping',
  verifySingle: 'verifier.address.verify',
  verifyBulk: 'verifier.batch.verify',
  verifyDomain: 'verifier.domain.verify',
  verifierPing: 'verifier.health.ping',
  filesJobCreate: 'file-jobs.job.create',
  filesJobGet: 'file-jobs.job.get',
  filesJobPause: 'file-jobs.job.pause',
  filesJobResume: 'file-jobs.job.resume',
  filesJobCancel: 'file-jobs.job.cancel',
  filesJobResults: 'file-jobs.job.results',
  filesJobLocate: 'file-jobs.job.locate',
  filesJobDelete: 'file-jobs.job.delete',
  filesJobList: 'file-jobs.job.list',
  filesPing: 'file-jobs.health.ping',
  webhooksCreate: 'webhooks.webhook.create',
  webhooksList: 'webhooks.webhook.list',
  webhooksUpdate: 'webhooks.webhook.update',
  webhooksDelete: 'webhooks.webhook.delete',
  webhooksRotateSecret: 'webhooks.webhook.rotate',
  webhooksDeliveryList: 'webhooks.delivery.list',
  webhooksRedeliver: 'webhooks.delivery.redeliver',
  webhooksPing: 'webhooks.health.ping',
} as const;
export type Subject = (typeof Subjects)[keyof typeof Subjects];

/** Core NATS broadcasts (losing one is harmless: receivers also expire what they cache). */
export const Broadcasts = {
  /** A key was revoked or its default style changed: gateways drop what they cached for it. */
  keyChanged: 'credits.key.changed',
  /**
   * Domains' mail routing a verifier found in the DNS: the other verifiers take it instead of asking again (a
   * file job's chunks go to every replica, and each would otherwise resolve every domain of the file).
   */
  domainFacts: 'verifier.domain.facts',
} as const;

/** Queue group names: one per service, so replicas share the work. */
export const QueueGroups = {
  credits: 'credits',
  verifier: 'verifier',
  fileJobs: 'file-jobs',
  webhooks: 'webhooks',
} as const;

// ---- credits -------------------------------------------------------------------------------------------

/**
 * A key's mode, fixed when it is made: a `sandbox` key (`ev_test_...`) gets canned answers, touches no network
 * and is never charged; it can never become live, nor make a live key.
 */
export type KeyMode = 'live' | 'sandbox';
export const KEY_MODES = ['live', 'sandbox'] as const satisfies readonly KeyMode[];
/** What a key may do: `full`, or `verify` (verification endpoints and credits only, no keys or webhooks). */
export type KeyScope = 'full' | 'verify';
export const KEY_SCOPES = ['full', 'verify'] as const satisfies readonly KeyScope[];

export interface AuthResolveRequest {
  /** Hex SHA-256 of the presented key: raw keys never travel between services. */
  keyHash: string;
}
export interface ResolvedKey {
  accountId: AccountId;
  apiKeyId: string;
  apiKeyName: string;
  style: ResponseStyle;
  plan: string;
  mode: KeyMode;
  scope: KeyScope;
  /** When the key stops working (ISO timestamp): no gateway may trust it past then. Absent: never. */
  expiresAt?: string;
}
export type AuthResolveReply = { found: true; key: ResolvedKey } | { found: false };

export interface BalanceGetRequest {
  accountId: AccountId;
  apiKeyId: string;
}
export interface BalanceReply {
  accountId: AccountId;
  apiKeyId: string;
  apiKeyName: string;
  plan: string;
  balance: number;
  consumed: number;
  added: number;
  updatedAt: string;
  /** The mode of the key asking. */
  mode: KeyMode;
}

export interface ReserveRequest {
  accountId: AccountId;
  /** Repeating a reservation with the same key applies it once and returns the first outcome. */
  idempotencyKey: string;
  amount: number;
  /**
   * How long the holder may take to settle. Past it the credits service presumes the holder dead and refunds
   * the whole reservation (a settle that comes later is answered as a replay and changes nothing). Absent:
   * held until settled, for holders that keep their work durably (a file job).
   */
  holdSeconds?: number;
}
export interface ReserveReply {
  reservationId: string;
  amount: number;
  /** Balance left after the reservation. */
  balance: number;
  /** True when this key had already been reserved: nothing new was taken. */
  replayed: boolean;
}

/**
 * Many reservations at once (a verifier sends those of its requests that started meanwhile together), held in
 * one statement and commit: each has its own outcome, as if it had been sent alone, and the whole either holds
 * or fails (an error reply: nothing was reserved). Idempotency keys must be distinct within one request.
 */
export const RESERVE_MANY_MAX = 1_000;
export interface ReserveManyRequest {
  /** At most RESERVE_MANY_MAX. */
  reservations: ReserveRequest[];
  /**
   * Reservations used in full to close at the same time, as CloseUsedRequest (at most CLOSE_USED_MAX), except
   * one that a settlement or the expiry sweep is ending at that very moment (it ends as that one says).
   */
  close?: Array<{ accountId: AccountId; idempotencyKey: string }>;
}
/** One reservation's outcome: its reply, or the error it would have been answered alone (short balance...). */
export type ReserveOutcomeReply = { ok: true; reply: ReserveReply } | { ok: false; error: ErrorBody };
export interface ReserveManyReply {
  /** One per reservation, in their order. */
  outcomes: ReserveOutcomeReply[];
  /** How many of `close` this call ended. */
  closed: number;
}

export interface SettleRequest {
  accountId: AccountId;
  idempotencyKey: string;
  /** Credits actually used; the rest of the reservation is refunded. */
  used: number;
}
export interface SettleReply {
  reservationId: string;
  used: number;
  refunded: number;
  balance: number;
  /** True when the reservation had already ended (settled before, or refunded whole when it expired). */
  replayed: boolean;
}

/**
 * Settles reservations that were used in full, many at once (a verifier sends those of its requests that
 * ended meanwhile together): nothing is refunded, so no balance moves. A reservation already ended (settled,
 * or refunded whole when its hold ran out) is left as it is.
 */
export const CLOSE_USED_MAX = 1_000;
export interface CloseUsedRequest {
  /** At most CLOSE_USED_MAX. */
  reservations: Array<{ accountId: AccountId; idempotencyKey: string }>;
}
export interface CloseUsedReply {
  /** How many of them this call ended. */
  closed: number;
}

export interface AccountCreateRequest {
  name: string;
  credits: number;
  style?: ResponseStyle;
  plan?: string;
}
export interface AccountCreateReply {
  accountId: AccountId;
  apiKeyId: string;
  apiKey: string;
}

export interface BalanceAddRequest {
  accountId: AccountId;
  credits: number;
}
export interface BalanceAddReply {
  accountId: AccountId;
  creditsBalance: number;
  creditsAdded: number;
}

export interface KeyCreateRequest {
  accountId: AccountId;
  name?: string;
  style?: ResponseStyle;
  /** Default `live`. */
  mode?: KeyMode;
  /** Default `full`. */
  scope?: KeyScope;
  /** ISO timestamp after which the key no longer authenticates; absent: it never expires. */
  expiresAt?: string;
}
export interface KeyCreateReply {
  accountId: AccountId;
  apiKeyId: string;
  apiKeyName: string;
  apiKey: string;
  style: ResponseStyle;
  mode: KeyMode;
  scope: KeyScope;
  prefix: string;
  createdAt: string;
  expiresAt: string | null;
}

export interface KeySetStyleRequest {
  apiKeyId: string;
  style: ResponseStyle;
}
export interface KeyRevokeRequest {
  apiKeyId: string;
}
export interface KeySummary {
  apiKeyId: string;
  accountId: AccountId;
  name: string;
  prefix: string;
  style: ResponseStyle;
  mode: KeyMode;
  scope: KeyScope;
  createdAt: string;
  expiresAt: string | null;
  revokedAt: string | null;
}
export interface KeyListRequest {
  accountId: AccountId;
  /** Only the keys of this mode (a sandbox key sees the sandbox keys alone). */
  mode?: KeyMode;
}

/** Keys an account may hold at once, revoked and expired ones aside. */
export const MAX_ACTIVE_KEYS_PER_ACCOUNT = 100;

/** A key of the account, revoked by another key of it (a key never revokes itself). */
export interface AccountKeyRevokeRequest {
  accountId: AccountId;
  apiKeyId: string;
  /** The key asking. */
  callerApiKeyId: string;
  /** Only a key of this mode may be revoked; another is not found (a sandbox key manages sandbox keys alone). */
  mode?: KeyMode;
}
export interface KeyListReply {
  keys: KeySummary[];
}

export interface KeyChangedBroadcast {
  apiKeyId: string;
  keyHash: string;
}

// ---- verifier ------------------------------------------------------------------------------------------

/**
 * Broadcasts.domainFacts: facts one verifier found, each as [domain, facts, milliseconds they may still be
 * kept]. The facts are the verification engine's DomainFacts; receivers check their shape and bounds before
 * taking them.
 */
export interface DomainFactsBroadcast {
  /** The sending process, which ignores its own broadcasts. */
  from: string;
  facts: [domain: string, facts: unknown, ttlMs: number][];
}

export interface VerifySingleRequest {
  accountId: AccountId;
  email: string;
  checkSmtp: boolean;
  forceRefresh: boolean;
  /** Asked with a sandbox key: answered from the sandbox table, with no network, no cache and no charge. */
  sandbox?: boolean;
}
export type VerifySingleReply = BilledVerificationResult;

export interface VerifyBulkRequest {
  accountId: AccountId;
  emails: string[];
  checkSmtp: boolean;
  /** As VerifySingleRequest's. */
  sandbox?: boolean;
}
export interface VerifyBulkReply {
  results: BilledVerificationResult[];
  creditsUsed: number;
  processTimeMs: number;
}

export interface VerifyDomainRequest {
  accountId: AccountId;
  /** The domain as the caller gave it; the verifier normalises it (IDN to punycode) and refuses what is not one. */
  domain: string;
  checkSmtp: boolean;
  /** As VerifySingleRequest's. */
  sandbox?: boolean;
}
export type VerifyDomainReply = BilledDomainReport;

export interface PingReply {
  service: string;
  ok: boolean;
}

/** Request and reply type of each request/reply subject. */
export interface RpcMap {
  [Subjects.creditsAuthResolve]: { request: AuthResolveRequest; reply: AuthResolveReply };
  [Subjects.creditsBalanceGet]: { request: BalanceGetRequest; reply: BalanceReply };
  [Subjects.creditsReserve]: { request: ReserveRequest; reply: ReserveReply };
  [Subjects.creditsReserveMany]: { request: ReserveManyRequest; reply: ReserveManyReply };
  [Subjects.creditsSettle]: { request: SettleRequest; reply: SettleReply };
  [Subjects.creditsCloseUsed]: { request: CloseUsedRequest; reply: CloseUsedReply };
  [Subjects.creditsAccountCreate]: { request: AccountCreateRequest; reply: AccountCreateReply };
  [Subjects.creditsBalanceAdd]: { request: BalanceAddRequest; reply: BalanceAddReply };
  [Subjects.creditsKeyCreate]: { request: KeyCreateRequest; reply: KeyCreateReply };
  [Subjects.creditsKeySetStyle]: { request: KeySetStyleRequest; reply: KeySummary };
  [Subjects.creditsKeyRevoke]: { request: KeyRevokeRequest; reply: KeySummary };
  [Subjects.creditsKeyList]: { request: KeyListRequest; reply: KeyListReply };
  [Subjects.creditsAccountKeyRevoke]: { request: AccountKeyRevokeRequest; reply: KeySummary };
  [Subjects.creditsLedgerList]: { request: LedgerListRequest; reply: LedgerListReply };
  [Subjects.creditsUsageGet]: { request: UsageGetRequest; reply: UsageReply };
  [Subjects.creditsUsageRecord]: { request: UsageRecordRequest; reply: UsageRecordReply };
  [Subjects.creditsPing]: { request: Record<string, never>; reply: PingReply };
  [Subjects.verifySingle]: { request: VerifySingleRequest; reply: VerifySingleReply };
  [Subjects.verifyBulk]: { request: VerifyBulkRequest; reply: VerifyBulkReply };
  [Subjects.verifyDomain]: { request: VerifyDomainRequest; reply: VerifyDomainReply };
  [Subjects.verifierPing]: { request: Record<string, never>; reply: PingReply };
  [Subjects.filesJobCreate]: { request: FileJobCreateRequest; reply: FileJobView };
  [Subjects.filesJobGet]: { request: FileJobRef; reply: FileJobView };
  [Subjects.filesJobPause]: { request: FileJobRef; reply: FileJobView };
  [Subjects.filesJobResume]: { request: FileJobRef; reply: FileJobView };
  [Subjects.filesJobCancel]: { request: FileJobRef; reply: FileJobView };
  [Subjects.filesJobResults]: { request: FileJobResultsRequest; reply: FileJobResultsReply };
  [Subjects.filesJobLocate]: {
    request: FileJobLocateRequest;
    reply: FileJobResultsReply & { accountId: AccountId; status: string };
  };
  [Subjects.filesJobDelete]: { request: FileJobRef; reply: FileJobDeleteReply };
  [Subjects.filesJobList]: { request: FileJobListRequest; reply: FileJobListReply };
  [Subjects.filesPing]: { request: Record<string, never>; reply: PingReply };
  [Subjects.webhooksCreate]: { request: WebhookCreateRequest; reply: WebhookCreateReply };
  [Subjects.webhooksList]: { request: WebhookListRequest; reply: WebhookListReply };
  [Subjects.webhooksUpdate]: { request: WebhookUpdateRequest; reply: Webhook };
  [Subjects.webhooksDelete]: { request: WebhookRef; reply: WebhookDeleteReply };
  [Subjects.webhooksRotateSecret]: { request: WebhookRef; reply: WebhookRotateReply };
  [Subjects.webhooksDeliveryList]: { request: DeliveryListRequest; reply: DeliveryListReply };
  [Subjects.webhooksRedeliver]: { request: RedeliverRequest; reply: Delivery };
  [Subjects.webhooksPing]: { request: Record<string, never>; reply: PingReply };
}
export type RpcSubject = keyof RpcMap;
export type RpcRequest<S extends RpcSubject> = RpcMap[S]['request'];
export type RpcReply<S extends RpcSubject> = RpcMap[S]['reply'];

/** What travels back on every request/reply subject. */
export type RpcEnvelope<T> = { ok: true; data: T } | { ok: false; error: ErrorBody };

/** NATS header names used across services. */
export const Headers = {
  requestId: 'X-Request-Id',
} as const;
