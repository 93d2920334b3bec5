import {
  DMARC_POLICIES,
  DOMAIN_REASONS,
  type ErrorCode,
  LEGACY_STATUSES,
  VERIFICATION_STATUSES,
} from '@emailverify/contracts';
import { type RouteDocs, sameInBothStyles, type StyledBody } from '../openapi/api-route';
import { bool, each, int, named, nullable, object, str, time } from '../openapi/schema';

// Each document names its own style's statuses VerificationStatus.
const status = named(
  'VerificationStatus',
  { type: 'string', enum: [...VERIFICATION_STATUSES] },
  'The verdict on an address',
);
const legacyStatus = named(
  'VerificationStatus',
  { type: 'string', enum: [...LEGACY_STATUSES] },
  'The verdict on an address (legacy names)',
);
const score = { type: 'number', minimum: 0, maximum: 1 };
const FLAGS = ['is_deliverable', 'is_disposable', 'is_catchall', 'is_role', 'is_free'];
const LEGACY_RESULT = [
  'deliverable',
  'valid_format',
  'valid_domain',
  'valid_mx',
  'disposable',
  'role',
  'catchall',
  'free',
  'smtp_valid',
];

const flagsExample = {
  is_deliverable: true,
  is_disposable: false,
  is_catchall: false,
  is_role: false,
  is_free: false,
};

const singleDocs: StyledBody = {
  name: 'VerificationResult',
  current: object({
    email: str,
    status,
    score,
    ...each(FLAGS, bool),
    has_gravatar: bool,
    gravatar_url: str,
    domain: str,
    domain_age: int,
    mx_records: { type: 'array', items: str },
    domain_reputation: object({
      mx_ip: str,
      is_listed: bool,
      blacklists: { type: 'array', items: str },
      checked: bool,
    }),
    smtp_check: bool,
    reason: str,
    smtp_response: str,
    error_message: str,
    domain_suggestion: str,
    response_time: int,
    credits_used: int,
  }),
  legacy: object({
    email: str,
    status: legacyStatus,
    result: object(each(LEGACY_RESULT, bool)),
    score,
    reason: nullable(str),
    credits_used: int,
  }),
  currentExample: {
    email: 'jane.doe@example.com',
    status: 'valid',
    score: 0.99,
    ...flagsExample,
    has_gravatar: false,
    gravatar_url: '',
    domain: 'example.com',
    domain_age: 10957,
    mx_records: ['mx1.example.com', 'mx2.example.com'],
    domain_reputation: { mx_ip: '192.0.2.10', is_listed: false, blacklists: [], checked: true },
    smtp_check: true,
    reason: 'accepted',
    smtp_response: '250 2.1.5 OK',
    error_message: '',
    domain_suggestion: '',
    response_time: 412,
    credits_used: 1,
  },
  legacyExample: {
    email: 'jane.doe@example.com',
    status: 'valid',
    result: {
      deliverable: true,
      valid_format: true,
      valid_domain: true,
      valid_mx: true,
      disposable: false,
      role: false,
      catchall: false,
      free: false,
      smtp_valid: true,
    },
    score: 0.99,
    reason: null,
    credits_used: 1,
  },
};

/** A batch reply: its items and the totals of both styles. */
const bulk = (item: Record<string, unknown>) =>
  object({
    results: { type: 'array', items: item },
    ...each(['total_emails', 'valid_emails', 'invalid_emails', 'credits_used', 'process_time'], int),
  });

const bulkDocs: StyledBody = {
  name: 'BulkResult',
  current: bulk(
    named(
      'BulkResultItem',
      object({ email: str, status, score, is_deliverable: bool, credits_used: int }),
      'The verdict on one address of the batch',
    ),
  ),
  legacy: bulk(
    named(
      'BulkResultItem',
      object({
        email: str,
        status: legacyStatus,
        score,
        ...each(FLAGS, bool),
        domain: str,
        check_smtp: bool,
        reason: nullable(str),
        credits_used: int,
      }),
      'The verdict on one address of the batch',
    ),
  ),
  currentExample: {
    results: [
      { email: 'jane.doe@example.com', status: 'valid', score: 0.9, is_deliverable: true, credits_used: 1 },
      {
        email: 'nobody@invalid.example',
        status: 'invalid',
        score: 0.1,
        is_deliverable: false,
        credits_used: 1,
      },
    ],
    total_emails: 2,
    valid_emails: 1,
    invalid_emails: 1,
    credits_used: 2,
    process_time: 84,
  },
  legacyExample: {
    results: [
      {
        email: 'jane.doe@example.com',
        status: 'valid',
        score: 0.9,
        ...flagsExample,
        domain: 'example.com',
        check_smtp: false,
        reason: null,
        credits_used: 1,
      },
    ],
    total_emails: 1,
    valid_emails: 1,
    invalid_emails: 0,
    credits_used: 1,
    process_time: 61,
  },
};

const disposableDocs = sameInBothStyles(
  object({ email: str, domain: str, is_disposable: bool, checked_at: time }),
  {
    email: 'someone@mailinator.com',
    domain: 'mailinator.com',
    is_disposable: true,
    checked_at: '2026-11-22T10:00:00Z',
  },
  'DisposableCheck',
);

const strings = { type: 'array', items: str };

const domainReportDocs = sameInBothStyles(
  object({
    domain: { ...str, description: 'ASCII (punycode) form' },
    accepts_mail: bool,
    reason: named(
      'DomainReason',
      { type: 'string', enum: [...DOMAIN_REASONS] },
      'Why the domain does or does not accept mail',
    ),
    mx_records: {
      ...strings,
      description: 'MX host names in preference order (the domain itself for an implicit MX)',
    },
    mx_hosts: {
      type: 'array',
      description: 'The mail hosts that have a reachable address, in preference order',
      items: object({ host: str, preference: int, addresses: strings }),
    },
    has_null_mx: bool,
    implicit_mx: bool,
    is_catchall: nullable(bool, 'true or false when check_smtp=true and the probe was conclusive, else null'),
    is_disposable: bool,
    is_free: bool,
    domain_age: { ...int, description: 'Days since registration (RDAP); 0 when unknown' },
    domain_reputation: object({
      mx_ip: { ...str, description: "First MX host's IPv4 address; empty when none" },
      is_listed: bool,
      blacklists: { ...strings, description: 'Zones that listed the domain or one of its MX addresses' },
      checked: bool,
      mx_ips: {
        type: 'array',
        description: 'Each MX IPv4 address with the zones that list it',
        items: object({ ip: str, blacklists: strings }),
      },
    }),
    spf: object({ present: bool, record: nullable(str, 'The v=spf1 TXT record') }),
    dmarc: object({
      present: bool,
      policy: nullable({ type: 'string', enum: [...DMARC_POLICIES] }, 'The p= policy of the _dmarc record'),
    }),
    credits_used: int,
    response_time: int,
  }),
  {
    domain: 'example.com',
    accepts_mail: true,
    reason: 'mx_found',
    mx_records: ['mx1.example.com', 'mx2.example.com'],
    mx_hosts: [
      { host: 'mx1.example.com', preference: 10, addresses: ['192.0.2.10'] },
      { host: 'mx2.example.com', preference: 20, addresses: ['192.0.2.20', '2001:db8::20'] },
    ],
    has_null_mx: false,
    implicit_mx: false,
    is_catchall: false,
    is_disposable: false,
    is_free: false,
    domain_age: 10957,
    domain_reputation: {
      mx_ip: '192.0.2.10',
      is_listed: false,
      blacklists: [],
      checked: true,
      mx_ips: [
        { ip: '192.0.2.10', blacklists: [] },
        { ip: '192.0.2.20', blacklists: [] },
      ],
    },
    spf: { present: true, record: 'v=spf1 mx -all' },
    dmarc: { present: true, policy: 'reject' },
    credits_used: 1,
    response_time: 388,
  },
  'DomainReport',
);

/** What a paid verification can fail with, besides a key or rate-limit refusal. */
const PAID_VERIFICATION_ERRORS: ErrorCode[] = [
  'INSUFFICIENT_CREDITS',
  'PAYLOAD_TOO_LARGE',
  'SERVICE_UNAVAILABLE',
  'TIMEOUT',
];

/** The disposable check, by POST (a JSON body) or GET (a query): an in-memory lookup that calls no service. */
const DISPOSABLE_ROUTE: RouteDocs = {
  operationId: 'checkDisposable',
  summary: 'Is the address on a known disposable provider? Free: no credits.',
  ok: disposableDocs,
  errors: ['INVALID_EMAIL'],
};

/** What the document says about each route. */
export const VerifyRoutes = {
  single: {
    operationId: 'verifySingle',
    summary: 'Verify one address',
    description: 'Costs 1 credit unless cached or unknown; force_refresh always costs 1.',
    ok: singleDocs,
    errors: [...PAID_VERIFICATION_ERRORS, 'INVALID_EMAIL'],
  },
  bulk: {
    operationId: 'verifyBulk',
    summary: 'Verify a batch of addresses synchronously (up to BULK_MAX_EMAILS, default 100)',
    ok: bulkDocs,
    errors: PAID_VERIFICATION_ERRORS,
  },
  domain: {
    operationId: 'verifyDomain',
    summary: "Report on a domain's mail setup (extension)",
    description:
      'MX hosts and their addresses, null and implicit MX, the catch-all verdict of an SMTP probe with a random local part (check_smtp=true), blocklist listings of the domain and its MX addresses, SPF and DMARC records, domain age, disposable and free flags. Costs 1 credit unless cached or the verdict is unknown (dns_error, or an inconclusive probe). A domain with a local part, an IP address or a malformed name is 400 INVALID_REQUEST.',
    ok: domainReportDocs,
    errors: ['INSUFFICIENT_CREDITS', 'SERVICE_UNAVAILABLE', 'TIMEOUT'],
  },
  disposablePost: { ...DISPOSABLE_ROUTE, errors: [...DISPOSABLE_ROUTE.errors, 'PAYLOAD_TOO_LARGE'] },
  disposableGet: { ...DISPOSABLE_ROUTE, operationId: 'checkDisposableByQuery' },
} satisfies Record<string, RouteDocs>;
