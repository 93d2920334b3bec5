import type { IncomingHttpHeaders } from 'node:http';

/** The headers that may carry a key, in priority order (`Authorization` as `Bearer <key>`). */
const KEY_CARRIERS = ['svc-api-key', 'service-api-key', 'authorization'] as const;

export type CarriedKey = { carrier: (typeof KEY_CARRIERS)[number]; key: string } | undefined;

/**
 * The first carrier present decides: a wrong key there is refused even when a later carrier holds a good one.
 * An empty or malformed value in a present carrier yields an empty key (refused), not a fall-through.
 */
export function extractApiKey(headers: IncomingHttpHeaders): CarriedKey {
  for (const carrier of KEY_CARRIERS) {
    const raw = headers[carrier];
    if (raw === undefined) continue;
    const value = (Array.isArray(raw) ? raw[0] : raw) ?? '';
    if (carrier === 'authorization') {
      const match = /^Bearer\s+(\S+)\s*$/i.exec(value);
      return { carrier, key: match?.[1] ?? '' };
    }
    return { carrier, key: value.trim() };
  }
  return undefined;
}
