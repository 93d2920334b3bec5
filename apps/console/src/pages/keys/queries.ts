import { api, unwrap } from '../../api/client';

export const keyKeys = {
  list: ['keys', 'list'] as const,
  ledger: (cursor: string | undefined) => ['credits', 'ledger', cursor ?? 'first'] as const,
};

/** Entries a page of the ledger holds. */
export const LEDGER_PAGE_SIZE = 20;

export function fetchKeys(signal?: AbortSignal) {
  return unwrap(api().GET('/v1/keys', { signal }));
}

export function fetchLedger(cursor: string | undefined, signal?: AbortSignal) {
  return unwrap(
    api().GET('/v1/credits/ledger', { params: { query: { limit: LEDGER_PAGE_SIZE, cursor } }, signal }),
  );
}
