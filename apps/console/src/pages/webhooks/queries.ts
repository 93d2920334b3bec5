import { api, unwrap } from '../../api/client';

export const webhookKeys = {
  all: ['webhooks'] as const,
  list: ['webhooks', 'list'] as const,
  deliveriesOf: (webhookId: string) => ['webhooks', 'deliveries', webhookId] as const,
  deliveries: (webhookId: string, cursor: string | undefined) =>
    ['webhooks', 'deliveries', webhookId, cursor ?? 'first'] as const,
};

/** Deliveries a page of the log holds. */
export const DELIVERY_PAGE_SIZE = 10;

export function fetchWebhooks(signal?: AbortSignal) {
  return unwrap(api().GET('/v1/webhooks', { signal }));
}

export function fetchDeliveries(webhookId: string, cursor: string | undefined, signal?: AbortSignal) {
  return unwrap(
    api().GET('/v1/webhooks/{webhookId}/deliveries', {
      params: { path: { webhookId }, query: { limit: DELIVERY_PAGE_SIZE, cursor } },
      signal,
    }),
  );
}
