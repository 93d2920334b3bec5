import type { RouteDocs, StyledBody } from '../openapi/api-route';
import { int, object, str, time } from '../openapi/schema';

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

/** What the document says about each route. */
export const CreditsRoutes = {
  balance: {
    summary: 'Credit balance of the authenticated account',
    ok: creditsDocs,
    errors: ['SERVICE_UNAVAILABLE'],
  },
} satisfies Record<string, RouteDocs>;
