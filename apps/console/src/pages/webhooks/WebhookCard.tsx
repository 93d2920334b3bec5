import { useMutation } from '@tanstack/react-query';
import { type RefObject, useId, useState } from 'react';
import { api, unwrap } from '../../api/client';
import { queryClient } from '../../api/queries';
import { ErrorMessage } from '../../components/ErrorMessage';
import { formatDateTime } from '../../format/numbers';
import { ConfirmDialog } from '../../components/ConfirmDialog';
import { LookBadge } from '../../components/LookBadge';
import { ShownOnce } from '../../components/ShownOnce';
import { useSecretReply } from '../../hooks/secret-reply';
import { BreakerNotice } from './BreakerNotice';
import { activeLook, breakerOf, eventsWords, lastDeliveryLook, secretWords, type Webhook } from './delivery';
import { DeliveryLog } from './DeliveryLog';
import { webhookKeys } from './queries';
import { Fact, Facts } from '../../components/Facts';

type Dialog = 'delete' | 'rotate' | undefined;

interface Props {
  webhook: Webhook;
  /** Called once the webhook is deleted. */
  onDeleted: (url: string) => void;
  /** Where focus goes once the webhook is deleted (its card goes away). */
  listHeading: RefObject<HTMLElement | null>;
}

/** One webhook: its state and last delivery, its actions, and its delivery log when opened. */
export function WebhookCard({ webhook, onDeleted, listHeading }: Props) {
  const headingId = useId();
  const logId = useId();
  const [logOpen, setLogOpen] = useState(false);
  const [dialog, setDialog] = useState<Dialog>();
  const path = { params: { path: { webhookId: webhook.id } } };

  const toggle = useMutation({
    mutationFn: (isActive: boolean) =>
      unwrap(api().PATCH('/v1/webhooks/{webhookId}', { ...path, body: { is_active: isActive } })),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: webhookKeys.all }),
  });
  const rotate = useSecretReply(
    () => unwrap(api().POST('/v1/webhooks/{webhookId}/rotate-secret', path)),
    () => {
      setDialog(undefined);
      void queryClient.invalidateQueries({ queryKey: webhookKeys.list });
    },
  );
  const rotated = rotate.reply;
  const remove = useMutation({
    mutationFn: () => unwrap(api().DELETE('/v1/webhooks/{webhookId}', path)),
    onSuccess: () => {
      setDialog(undefined);
      onDeleted(webhook.url);
      // Its log is gone with it: dropped, not asked for again.
      queryClient.removeQueries({ queryKey: webhookKeys.deliveriesOf(webhook.id) });
      void queryClient.invalidateQueries({ queryKey: webhookKeys.list });
    },
  });
  const last = lastDeliveryLook(webhook.last_delivery_status);

  return (
    <article className="card webhook" aria-labelledby={headingId}>
      <h3 id={headingId} className="webhook__url mono">
        {webhook.url}
      </h3>
      {rotated ? (
        <ShownOnce
          title="New signing secret"
          level={4}
          label="Signing secret"
          secret={rotated.secret}
          onDone={rotate.forget}
        >
          <p className="hint">
            Put it in your receiver’s settings.
            {rotated.previous_secret_expires_at
              ? ` Until ${formatDateTime(rotated.previous_secret_expires_at)} deliveries are signed with both the previous secret and this one, so your receiver keeps working while you switch.`
              : ''}
          </p>
        </ShownOnce>
      ) : null}
      <Facts>
        <Fact term="State">
          <LookBadge look={activeLook(webhook.is_active)} />
        </Fact>
        <Fact term="Events">{eventsWords(webhook.events)}</Fact>
        <Fact term="Last delivery">
          <LookBadge look={last} />
          {webhook.last_delivery_at ? ` ${formatDateTime(webhook.last_delivery_at)}` : null}
          {webhook.last_error ? <span className="webhook__error">{webhook.last_error}</span> : null}
        </Fact>
        <Fact term="Signing secret">{secretWords(webhook)}</Fact>
        <Fact term="Added">{formatDateTime(webhook.created_at)}</Fact>
      </Facts>
      <BreakerNotice breaker={breakerOf(webhook)} />
      {!webhook.is_active ? (
        <p className="hint">Disabled: no new deliveries are made until you enable it again.</p>
      ) : null}
      <div className="actions webhook__actions">
        <button
          type="button"
          className="button"
          aria-expanded={logOpen}
          aria-controls={logOpen ? logId : undefined}
          onClick={() => setLogOpen((open) => !open)}
        >
          {logOpen ? 'Hide deliveries' : 'Show deliveries'}
        </button>
        <button
          type="button"
          className="button"
          disabled={toggle.isPending}
          onClick={() => toggle.mutate(!webhook.is_active)}
        >
          {toggle.isPending ? 'Saving…' : webhook.is_active ? 'Disable' : 'Enable'}
        </button>
        <button type="button" className="button" onClick={() => setDialog('rotate')}>
          Rotate secret
        </button>
        <button type="button" className="button" onClick={() => setDialog('delete')}>
          Delete
        </button>
      </div>
      {toggle.isError ? (
        <ErrorMessage
          error={toggle.error}
          context={webhook.is_active ? 'Disabling the webhook' : 'Enabling the webhook'}
        />
      ) : null}
      {logOpen ? <DeliveryLog webhookId={webhook.id} url={webhook.url} id={logId} /> : null}

      <ConfirmDialog
        open={dialog === 'delete'}
        title="Delete this webhook?"
        confirmLabel="Delete webhook"
        busyLabel="Deleting…"
        danger
        action={remove}
        errorContext="Deleting the webhook"
        returnFocusTo={listHeading}
        onConfirm={() => remove.mutate()}
        onCancel={() => setDialog(undefined)}
      >
        <p className="mono">{webhook.url}</p>
        <p>
          No more notifications are sent to it, and its delivery log is deleted with it. This cannot be
          undone.
        </p>
      </ConfirmDialog>
      <ConfirmDialog
        open={dialog === 'rotate'}
        title="Rotate the signing secret?"
        confirmLabel="Rotate secret"
        busyLabel="Rotating…"
        action={rotate.mutation}
        errorContext="Rotating the secret"
        onConfirm={() => rotate.send(undefined)}
        onCancel={() => setDialog(undefined)}
      >
        <p>
          A new secret is made and shown once. For a while (24 hours unless the service is set otherwise)
          deliveries are signed with both the current secret and the new one, so your receiver keeps working
          while you switch it over.
        </p>
      </ConfirmDialog>
    </article>
  );
}
