import { useMutation, useQuery } from '@tanstack/react-query';
import { useId, useState } from 'react';
import { Link } from 'react-router';
import { api, unwrap } from '../../api/client';
import { queryClient } from '../../api/queries';
import { ErrorMessage } from '../../components/ErrorMessage';
import { Loading } from '../../components/Loading';
import { TableWrap } from '../../components/TableWrap';
import { formatDateTime } from '../../format/numbers';
import { useCursorPages } from '../account/cursor-pages';
import { Pager } from '../account/Pager';
import { loadingWords } from '../account/scope';
import { LookBadge } from '../account/Tone';
import {
  attemptWords,
  breakerOf,
  breakerWords,
  deliveryLook,
  deliveryProgressWords,
  eventWords,
} from './delivery';
import { fetchDeliveries, webhookKeys } from './queries';

/** How often an open log looks again: sooner while a delivery is still being tried, or none has come yet. */
const REFRESH_MS = 15_000;
const REFRESH_PENDING_MS = 5_000;

/** A webhook's deliveries, newest first, a page at a time, each with its attempts and a redeliver button. */
export function DeliveryLog({ webhookId, url, id }: { webhookId: string; url: string; id: string }) {
  const pages = useCursorPages();
  const headingId = useId();
  const [said, setSaid] = useState('');
  const log = useQuery({
    queryKey: webhookKeys.deliveries(webhookId, pages.cursor),
    queryFn: ({ signal }) => fetchDeliveries(webhookId, pages.cursor, signal),
    refetchInterval: (query) => {
      // A failure is shown with its own "Try again".
      if (query.state.status === 'error') return false;
      const deliveries = query.state.data?.deliveries;
      const waiting =
        !deliveries || deliveries.length === 0 || deliveries.some((d) => d.status === 'pending');
      return waiting ? REFRESH_PENDING_MS : REFRESH_MS;
    },
    placeholderData: (previous) => previous,
  });
  const redeliver = useMutation({
    mutationFn: (deliveryId: string) =>
      unwrap(
        api().POST('/v1/webhooks/{webhookId}/deliveries/{deliveryId}/redeliver', {
          params: { path: { webhookId, deliveryId } },
        }),
      ),
    onSuccess: (delivery) => {
      // The reply is the delivery queued for its attempt; the log shows the outcome when it has one.
      setSaid(
        `The delivery of ${formatDateTime(delivery.created_at)} is being sent again now: its outcome shows in the log within seconds.`,
      );
      void queryClient.invalidateQueries({ queryKey: webhookKeys.all });
    },
  });
  const breaker = breakerWords(breakerOf(log.data));

  return (
    <section id={id} className="webhook-log" aria-labelledby={headingId}>
      <h4 id={headingId} className="webhook-log__title">
        Delivery log<span className="visually-hidden"> of {url}</span>
      </h4>
      {breaker ? (
        <p className="notice notice--warn">
          <span className="notice__glyph" aria-hidden="true">
            ‖
          </span>
          {breaker}
        </p>
      ) : null}
      {log.isPending ? <Loading label={loadingWords(log.fetchStatus, 'Loading the deliveries…')} /> : null}
      {log.isError ? (
        <ErrorMessage error={log.error} context="Loading the deliveries" onRetry={() => void log.refetch()} />
      ) : null}
      {log.data && log.data.deliveries.length === 0 && pages.page === 1 ? (
        <p className="hint">
          No deliveries yet. One is sent when a list you upload finishes verifying (or fails); it shows here
          within seconds.
        </p>
      ) : null}
      {log.data && log.data.deliveries.length > 0 ? (
        <TableWrap label={`Deliveries to ${url}`}>
          <table>
            <caption className="visually-hidden">Deliveries, newest first</caption>
            <thead>
              <tr>
                <th scope="col">Sent</th>
                <th scope="col">Event</th>
                <th scope="col">State</th>
                <th scope="col">Attempts</th>
                <th scope="col">Latest attempt</th>
                <th scope="col">List</th>
                <th scope="col">
                  <span className="visually-hidden">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {log.data.deliveries.map((delivery) => {
                const last = delivery.attempts[delivery.attempts.length - 1];
                return (
                  <tr key={delivery.id}>
                    <th scope="row">{formatDateTime(delivery.created_at)}</th>
                    <td>{eventWords(delivery.event)}</td>
                    <td>
                      <LookBadge look={deliveryLook(delivery)} />
                    </td>
                    <td>{deliveryProgressWords(delivery)}</td>
                    <td className="webhook-log__attempt">{last ? attemptWords(last) : '—'}</td>
                    <td>
                      <Link to={`/files/${delivery.job_id}`}>Open the list</Link>
                    </td>
                    <td>
                      <button
                        type="button"
                        className="button button--quiet"
                        disabled={redeliver.isPending && redeliver.variables === delivery.id}
                        onClick={() => {
                          setSaid('');
                          redeliver.mutate(delivery.id);
                        }}
                      >
                        {redeliver.isPending && redeliver.variables === delivery.id
                          ? 'Sending…'
                          : 'Redeliver'}
                      </button>
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </TableWrap>
      ) : null}
      <p className="hint account-status" role="status" aria-live="polite">
        {said}
      </p>
      {redeliver.isError ? (
        <ErrorMessage error={redeliver.error} context="Sending the delivery again" />
      ) : null}
      {log.data ? (
        <Pager
          label="Delivery log pages"
          things="deliveries"
          page={pages.page}
          hasOlder={Boolean(log.data.next_cursor)}
          onNewer={pages.newer}
          onOlder={() => pages.older(log.data.next_cursor)}
          busy={log.isFetching && log.isPlaceholderData}
        />
      ) : null}
    </section>
  );
}
