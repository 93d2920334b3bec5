import { VERIFICATION_STATUSES } from '@emailverify/contracts';
import { type RouteDocs, sameInBothStyles, type StyledBody } from '../openapi/api-route';
import { int, nullable, object, str, time } from '../openapi/schema';

const creditsDocs: StyledBody = {
  current: object({
    account_id: str,
    api_key_id: str,
    api_key_name: str,
    credits_balance: int,
    credits_consumed: int,
    credits_added: int,
    last_updated: time,
    mode: { type: 'string', enum: ['live', 'sandbox'], description: 'mode of the key asking' },
  }),
  legacy: object({
    available: int,
    used: int,
    total: int,
    plan: str,
    resets_at: time,
    rate_limit: object({ requests_per_hour: int, remaining: int }),
  }),
  currentExample: {
    account_id: '6f1c2b1e-6a1d-4c57-9a43-2d1f1f3b9a10',
    api_key_id: '0b8f3a52-93a4-4f0e-8d63-0e5f1d2c7a11',
    api_key_name: 'default',
    credits_balance: 950,
    credits_consumed: 50,
    credits_added: 1000,
    last_updated: '2026-11-22T10:00:00.000Z',
    mode: 'live',
  },
  legacyExample: {
    available: 950,
    used: 50,
    total: 1000,
    plan: 'payg',
    resets_at: '2026-11-22T10:01:00.000Z',
    rate_limit: { requests_per_hour: 36000, remaining: 599 },
  },
};

const entrySchema = object({
  id: str,
  type: {
    type: 'string',
    enum: ['grant', 'charge', 'refund'],
    description: '`charge`: credits taken when work starts; `refund`: the unused part given back',
  },
  amount: { type: 'integer', description: 'Signed: a charge is negative' },
  balance_after: int,
  created_at: time,
  source: nullable(
    { type: 'string', enum: ['single', 'bulk', 'domain', 'file', 'other'] },
    'What a charge or refund paid for; null for a grant',
  ),
  request_id: nullable(str, 'The X-Request-Id of the single, bulk or domain request charged'),
  job_id: nullable(str, 'The file job charged'),
});

const ledgerDocs: StyledBody = {
  ...sameInBothStyles(
    object({
      entries: { type: 'array', description: 'Newest first', items: entrySchema },
      next_cursor: nullable(str, 'Pass as `cursor` for the next page; null on the last page'),
    }),
    {
      entries: [
        {
          id: '4187',
          type: 'refund',
          amount: 1,
          balance_after: 950,
          created_at: '2026-11-22T10:00:01.200Z',
          source: 'bulk',
          request_id: 'req-7f3a',
          job_id: null,
        },
        {
          id: '4186',
          type: 'charge',
          amount: -3,
          balance_after: 949,
          created_at: '2026-11-22T10:00:00.400Z',
          source: 'bulk',
          request_id: 'req-7f3a',
          job_id: null,
        },
      ],
      next_cursor: 'WyJsZWRnZXIiLCI0MTg2Il0',
    },
  ),
  name: 'LedgerPage',
};

const statusCounts = object({
  total: int,
  ...Object.fromEntries(VERIFICATION_STATUSES.map((status) => [status, int])),
});
const countsProperties = {
  credits_added: { type: 'integer', description: 'Credits granted' },
  credits_used: {
    type: 'integer',
    description: 'Credits charged less credits refunded; added minus used over all days is the balance',
  },
  verifications: { ...statusCounts, description: 'Addresses verified with live keys, by status' },
  sandbox_verifications: {
    ...statusCounts,
    description: 'Addresses verified with sandbox keys (never charged)',
  },
};
const zeroCounts = Object.fromEntries(VERIFICATION_STATUSES.map((status) => [status, 0]));
const usageDocs: StyledBody = {
  ...sameInBothStyles(
    object({
      from: { type: 'string', format: 'date' },
      to: { type: 'string', format: 'date' },
      granularity: { type: 'string', enum: ['day'] },
      days: {
        type: 'array',
        description: 'Every day of the range (UTC), oldest first; days without activity at zero',
        items: object({ date: { type: 'string', format: 'date' }, ...countsProperties }),
      },
      totals: object(countsProperties),
    }),
    {
      from: '2026-11-21',
      to: '2026-11-22',
      granularity: 'day',
      days: [
        {
          date: '2026-11-21',
          credits_added: 1000,
          credits_used: 0,
          verifications: { total: 0, ...zeroCounts },
          sandbox_verifications: { total: 0, ...zeroCounts },
        },
        {
          date: '2026-11-22',
          credits_added: 0,
          credits_used: 50,
          verifications: { total: 52, ...zeroCounts, valid: 40, invalid: 8, unknown: 2, role: 2 },
          sandbox_verifications: { total: 5, ...zeroCounts, valid: 3, invalid: 2 },
        },
      ],
      totals: {
        credits_added: 1000,
        credits_used: 50,
        verifications: { total: 52, ...zeroCounts, valid: 40, invalid: 8, unknown: 2, role: 2 },
        sandbox_verifications: { total: 5, ...zeroCounts, valid: 3, invalid: 2 },
      },
    },
  ),
  name: 'Usage',
};

/** What the document says about each route. */
export const CreditsRoutes = {
  balance: {
    summary: 'Credit balance of the authenticated account',
    ok: creditsDocs,
    errors: ['SERVICE_UNAVAILABLE'],
  },
  ledger: {
    operationId: 'getCreditLedger',
    summary: "The account's credit ledger: grants, charges and refunds, newest first (extension)",
    description:
      'Pages are `limit` long (1-100, default 20); pass `next_cursor` as `cursor` for the next one. `from` and `to` (a date, UTC, or a date-time with a time zone) narrow the entries, at most 366 days apart. A cached result is free and has no entry; a verification charges when it starts and refunds what it did not use.',
    ok: ledgerDocs,
    errors: ['SERVICE_UNAVAILABLE'],
  },
  usage: {
    operationId: 'getUsage',
    summary: 'Verifications by status and credits used, per day (extension)',
    description:
      'Days are UTC, `from` and `to` included (YYYY-MM-DD; default the last 30 days; at most 366 days). Credits come from the ledger, so over an account’s whole life `credits_added - credits_used` is the balance. Verifications count every result answered, cached ones included; sandbox keys’ apart.',
    ok: usageDocs,
    errors: ['SERVICE_UNAVAILABLE'],
  },
} satisfies Record<string, RouteDocs>;
