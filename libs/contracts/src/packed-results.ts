import type { ChunkItemExtras, ChunkItemResult, ChunkResultMessage } from './file-jobs';
import type { VerificationResult, VerificationStatus } from './verification';

/*
 * Results packed to be stored and moved: their values in a fixed order (a JSON array), the booleans as bits of
 * one number, no field names; a third of the bytes of the object. Two forms, one set of bits:
 * - a whole result (packResult), the verifier's result cache row: cached results answer single and bulk
 *   requests too, which show every field;
 * - a chunk item (PackedChunkItem): only what the result file shows, with the address it answers and what it
 *   cost, because a million-address job moves (verifier, JetStream, file-jobs) and stores a million of them.
 * Both are written out rather than walked over a field list, several times faster: every address verified
 * goes through them.
 */

/** Bits of a packed result's flags number. A chunk item carries the result file's six (fileFlags). */
const DELIVERABLE = 1;
const DISPOSABLE = 2;
const CATCHALL = 4;
const ROLE = 8;
const FREE = 16;
const GRAVATAR = 32;
const SMTP_CHECK = 64;
const VALID_FORMAT = 128;
const VALID_DOMAIN = 256;
const VALID_MX = 512;
const SMTP_VALID = 1024;
const LISTED = 2048;
const REPUTATION_CHECKED = 4096;

/** The booleans the result file shows. */
type FileFlagFields = Pick<
  VerificationResult,
  'isDeliverable' | 'isDisposable' | 'isCatchall' | 'isRole' | 'isFree' | 'smtpCheck'
>;

function fileFlags(r: FileFlagFields): number {
  return (
    (r.isDeliverable ? DELIVERABLE : 0) |
    (r.isDisposable ? DISPOSABLE : 0) |
    (r.isCatchall ? CATCHALL : 0) |
    (r.isRole ? ROLE : 0) |
    (r.isFree ? FREE : 0) |
    (r.smtpCheck ? SMTP_CHECK : 0)
  );
}

function readFileFlags(flags: number): Required<FileFlagFields> {
  return {
    isDeliverable: (flags & DELIVERABLE) !== 0,
    isDisposable: (flags & DISPOSABLE) !== 0,
    isCatchall: (flags & CATCHALL) !== 0,
    isRole: (flags & ROLE) !== 0,
    isFree: (flags & FREE) !== 0,
    smtpCheck: (flags & SMTP_CHECK) !== 0,
  };
}

/**
 * The number of the whole-result form, checked on every read. The verifier's cache holds one form only: a
 * change of form comes with a migration that empties it, so a row of another form is a defect, never guessed at.
 */
const RESULT_FORM = 2;

/** A whole result packed, without the address and the status (the cache row's own columns hold them). */
export type PackedResult = [
  form: typeof RESULT_FORM,
  reason: VerificationResult['reason'],
  score: number,
  flags: number,
  domain: string,
  domainAge: number,
  mxRecords: string[],
  mxIp: string,
  blacklists: string[],
  gravatarUrl: string,
  smtpResponse: string,
  errorMessage: string,
  domainSuggestion: string,
  responseTime: number,
];

/** A whole result as one line of JSON text, without its address and status. */
export function packResult(r: VerificationResult): string {
  const rep = r.domainReputation;
  const flags =
    fileFlags(r) |
    (r.hasGravatar ? GRAVATAR : 0) |
    (r.validFormat ? VALID_FORMAT : 0) |
    (r.validDomain ? VALID_DOMAIN : 0) |
    (r.validMx ? VALID_MX : 0) |
    (r.smtpValid ? SMTP_VALID : 0) |
    (rep.isListed ? LISTED : 0) |
    (rep.checked ? REPUTATION_CHECKED : 0);
  const packed: PackedResult = [
    RESULT_FORM,
    r.reason,
    r.score,
    flags,
    r.domain,
    r.domainAge,
    r.mxRecords,
    rep.mxIp,
    rep.blacklists,
    r.gravatarUrl,
    r.smtpResponse,
    r.errorMessage,
    r.domainSuggestion,
    r.responseTime,
  ];
  return JSON.stringify(packed);
}

/** A packed whole result back, with the address and status it was stored under. */
export function unpackResult(
  email: string,
  status: VerificationResult['status'],
  text: string,
): VerificationResult {
  const packed = JSON.parse(text) as PackedResult;
  if (packed[0] !== RESULT_FORM) throw new Error(`a packed result of ${email} is not in form ${RESULT_FORM}`);
  const [
    ,
    reason,
    score,
    flags,
    domain,
    domainAge,
    mxRecords,
    mxIp,
    blacklists,
    gravatarUrl,
    smtpResponse,
    errorMessage,
    domainSuggestion,
    responseTime,
  ] = packed;
  // `satisfies`: this stops compiling when VerificationResult gains a field that is not packed.
  return {
    email,
    status,
    reason,
    score,
    ...readFileFlags(flags),
    hasGravatar: (flags & GRAVATAR) !== 0,
    gravatarUrl,
    domain,
    domainAge,
    mxRecords,
    domainReputation: {
      mxIp,
      isListed: (flags & LISTED) !== 0,
      blacklists,
      checked: (flags & REPUTATION_CHECKED) !== 0,
    } satisfies Required<VerificationResult['domainReputation']>,
    smtpResponse,
    errorMessage,
    domainSuggestion,
    responseTime,
    validFormat: (flags & VALID_FORMAT) !== 0,
    validDomain: (flags & VALID_DOMAIN) !== 0,
    validMx: (flags & VALID_MX) !== 0,
    smtpValid: (flags & SMTP_VALID) !== 0,
  } satisfies Required<VerificationResult>;
}

/**
 * A chunk item packed: the fields of ChunkItemResult, the six booleans as flags. An enriched job's item
 * (ChunkItemExtras) adds the Gravatar bit to the flags and its domain age at the end; another's stops at what it
 * cost, so the extras take no byte where nobody asked for them.
 */
export type PackedChunkItem = [
  email: string,
  status: VerificationStatus,
  reason: string,
  score: number,
  flags: number,
  domain: string,
  mxRecords: string[],
  domainSuggestion: string,
  creditsUsed: number,
  domainAge?: number,
];

export function packChunkItem(r: ChunkItemResult): PackedChunkItem {
  return packResultFields(
    r,
    r.creditsUsed,
    r.email,
    r.hasGravatar !== undefined && r.domainAge !== undefined,
  );
}

/**
 * Packs the result-file fields of any result (a verification's among them) with what it cost and the key it
 * answers, without building a ChunkItemResult first; with `extras`, an enriched job's item (the Gravatar bit and
 * the domain age, which the result has then).
 */
export function packResultFields(
  r: Omit<ChunkItemResult, 'email' | 'creditsUsed'>,
  creditsUsed: number,
  email: string,
  extras = false,
): PackedChunkItem {
  const item: PackedChunkItem = [
    email,
    r.status,
    r.reason,
    r.score,
    fileFlags(r) | (extras && r.hasGravatar ? GRAVATAR : 0),
    r.domain,
    r.mxRecords,
    r.domainSuggestion,
    creditsUsed,
  ];
  if (extras) item.push(r.domainAge ?? 0);
  return item;
}

export function unpackChunkItem(item: PackedChunkItem): ChunkItemResult {
  const [email, status, reason, score, flags, domain, mxRecords, domainSuggestion, creditsUsed, domainAge] =
    item;
  const fields = {
    email,
    status,
    reason,
    score,
    ...readFileFlags(flags),
    domain,
    mxRecords,
    domainSuggestion,
    creditsUsed,
  } satisfies Required<Omit<ChunkItemResult, keyof ChunkItemExtras>>;
  if (domainAge === undefined) return fields;
  return { ...fields, hasGravatar: (flags & GRAVATAR) !== 0, domainAge } satisfies Required<ChunkItemResult>;
}

/** An address waiting for a greylisting retry gets this answer first: unknown `greylisted`. */
export function isGreylistedItem(item: PackedChunkItem): boolean {
  return item[1] === 'unknown' && item[2] === 'greylisted';
}

/** What file-jobs counts of a chunk's results when it applies them. */
export interface ChunkResultCounts {
  addresses: number;
  /** Results by status (a status that none has may be missing). */
  statuses: Partial<Record<VerificationStatus, number>>;
  /** Credits the results cost together. */
  credits: number;
  /** Results unknown `greylisted`: the addresses a job with greylisting retries keeps waiting. */
  greylisted: number;
}

/**
 * A chunk's results as they travel (verifier to file-jobs) and rest (the chunk's row): the JSON text of its
 * PackedChunkItem[], in the chunk's address order, with their counts. file-jobs stores the text as it came and
 * counts from `counts`, so applying a chunk neither parses nor writes its results again; only the merge (and a
 * chunk with greylisted addresses) reads the items.
 */
export interface PackedChunkResults {
  text: string;
  counts: ChunkResultCounts;
}

export function countChunkItems(items: readonly PackedChunkItem[]): ChunkResultCounts {
  const counts: ChunkResultCounts = { addresses: items.length, statuses: {}, credits: 0, greylisted: 0 };
  for (const item of items) {
    counts.statuses[item[1]] = (counts.statuses[item[1]] ?? 0) + 1;
    counts.credits += item[8];
    if (isGreylistedItem(item)) counts.greylisted += 1;
  }
  return counts;
}

export function packChunkResults(items: readonly PackedChunkItem[]): PackedChunkResults {
  return { text: JSON.stringify(items), counts: countChunkItems(items) };
}

/** The items of packed chunk results (or of a chunk row's stored text). */
export function chunkItemsOf(text: string): PackedChunkItem[] {
  return JSON.parse(text) as PackedChunkItem[];
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/**
 * A chunk result message as it travels (the CHUNK_RESULTS stream): its other fields as one line of JSON, a line
 * feed, then the results' text as it is. Inside one JSON document the text would be a string, every quote of it
 * escaped by the verifier and unescaped by file-jobs, and about a tenth more bytes to carry and store.
 * JSON.stringify never writes a raw line feed, so the first one ends the fields.
 */
export function encodeChunkResultMessage(message: ChunkResultMessage): Uint8Array {
  const { results, ...fields } = message;
  return encoder.encode(`${JSON.stringify({ ...fields, counts: results.counts })}\n${results.text}`);
}

/** A chunk result message as encodeChunkResultMessage encoded it. */
export function decodeChunkResultMessage(data: Uint8Array): ChunkResultMessage {
  const whole = decoder.decode(data);
  const end = whole.indexOf('\n');
  if (end < 0)
    throw new Error('a chunk result message holds no line feed between its fields and its results');
  const { counts, ...fields } = JSON.parse(whole.slice(0, end)) as Omit<ChunkResultMessage, 'results'> & {
    counts: ChunkResultCounts;
  };
  return { ...fields, results: { text: whole.slice(end + 1), counts } };
}
