import type { Schemas } from '@emailverify/client';
import { useQuery } from '@tanstack/react-query';
import { useRef, useState } from 'react';
import { EmptyState } from '../../components/EmptyState';
import { ErrorMessage } from '../../components/ErrorMessage';
import { Loading } from '../../components/Loading';
import { PageHeader } from '../../components/PageHeader';
import { isScopeRefusal, loadingWords } from '../account/scope';
import { ShownOnce } from '../account/ShownOnce';
import { CreateWebhook } from './CreateWebhook';
import { fetchWebhooks, webhookKeys } from './queries';
import { WebhookCard } from './WebhookCard';
import '../account/account.css';
import './webhooks.css';

/** The list looks again this often, for the last delivery of each webhook. */
const REFRESH_MS = 15_000;

export default function WebhooksPage() {
  const [created, setCreated] = useState<Schemas['WebhookWithSecret']>();
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
        <CreateWebhook
          onCreated={(webhook) => {
            setSaid('');
            setCreated(webhook);
          }}
        />
        {created ? (
          <ShownOnce
            title="Signing secret of the new webhook"
            label="Signing secret"
            secret={created.secret}
            onDone={() => setCreated(undefined)}
          >
            <p className="hint">
              Your receiver uses it to check that each notification to{' '}
              <span className="mono">{created.url}</span> comes from this service (docs: “Checking the
              signature”).
            </p>
          </ShownOnce>
        ) : null}
      </section>
      <section aria-labelledby="webhook-list-heading" hidden={refused}>
        <h2 id="webhook-list-heading" ref={listHeading} tabIndex={-1}>
          Your webhooks
        </h2>
        <p className="hint account-status" role="status" aria-live="polite">
          {said}
        </p>
        {list.isPending ? <Loading label={loadingWords(list.fetchStatus, 'Loading your webhooks…')} /> : null}
        {list.isError && !refused ? (
          <ErrorMessage
            error={list.error}
            context="Loading your webhooks"
            onRetry={() => void list.refetch()}
          />
        ) : null}
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
