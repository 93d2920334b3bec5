import { useQuery } from '@tanstack/react-query';
import { useRef, useState } from 'react';
import { isScopeRefusal } from '../../api/problem';
import { EmptyState } from '../../components/EmptyState';
import { ErrorMessage } from '../../components/ErrorMessage';
import { PageHeader } from '../../components/PageHeader';
import { QueryState } from '../../components/QueryState';
import { StatusLine } from '../../components/StatusLine';
import { CreateWebhook } from './CreateWebhook';
import { fetchWebhooks, webhookKeys } from './queries';
import { WebhookCard } from './WebhookCard';
import './webhooks.css';

/** The list looks again this often, for the last delivery of each webhook. */
const REFRESH_MS = 15_000;

export default function WebhooksPage() {
  const [said, setSaid] = useState('');
  const listHeading = useRef<HTMLHeadingElement>(null);
  const list = useQuery({
    queryKey: webhookKeys.list,
    queryFn: ({ signal }) => fetchWebhooks(signal),
    refetchInterval: (query) => (isScopeRefusal(query.state.error) ? false : REFRESH_MS),
  });
  const refused = isScopeRefusal(list.error);

  return (
    <>
      <PageHeader title="Webhooks">
        Get a notification on your server when a list finishes verifying, and see each delivery.
      </PageHeader>
      {refused ? <ErrorMessage error={list.error} context="Webhooks" /> : null}
      <section aria-labelledby="webhook-add-heading" hidden={refused}>
        <h2 id="webhook-add-heading">Add a webhook</h2>
        <CreateWebhook onCreated={() => setSaid('')} />
      </section>
      <section aria-labelledby="webhook-list-heading" hidden={refused}>
        <h2 id="webhook-list-heading" ref={listHeading} tabIndex={-1}>
          Your webhooks
        </h2>
        <StatusLine>{said}</StatusLine>
        {refused ? null : (
          <QueryState query={list} loading="Loading your webhooks…" context="Loading your webhooks" />
        )}
        {list.data && list.data.webhooks.length === 0 ? (
          <EmptyState title="No webhooks yet">
            <p>Add one above: your server then hears of each finished list without having to ask.</p>
          </EmptyState>
        ) : null}
        {list.data?.webhooks.map((webhook) => (
          <WebhookCard
            key={webhook.id}
            webhook={webhook}
            listHeading={listHeading}
            onDeleted={(url) => setSaid(`The webhook ${url} was deleted.`)}
          />
        ))}
      </section>
    </>
  );
}
