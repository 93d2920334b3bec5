import { type FormEvent, useId, useState } from 'react';
import { api, unwrap } from '../../api/client';
import { queryClient } from '../../api/queries';
import { FormSubmit } from '../../components/FormSubmit';
import { ShownOnce } from '../../components/ShownOnce';
import { useSecretReply } from '../../hooks/secret-reply';
import { EVENTS, type WebhookEvent, webhookUrlProblem } from './delivery';
import { webhookKeys } from './queries';

/** The form that adds a webhook (its https address, the events it wants), then its secret shown once. */
export function CreateWebhook({ onCreated }: { onCreated: () => void }) {
  const [url, setUrl] = useState('');
  const [events, setEvents] = useState<WebhookEvent[]>(EVENTS.map((e) => e.event));
  const [problem, setProblem] = useState<{ field: 'url' | 'events'; words: string }>();
  const urlId = useId();
  const urlErrorId = useId();
  const eventsErrorId = useId();
  const create = useSecretReply(
    (body: { url: string; events: WebhookEvent[] }) => unwrap(api().POST('/v1/webhooks', { body })),
    () => {
      setUrl('');
      setEvents(EVENTS.map((e) => e.event));
      void queryClient.invalidateQueries({ queryKey: webhookKeys.all });
      onCreated();
    },
  );
  const created = create.reply;

  function submit(event: FormEvent): void {
    event.preventDefault();
    const urlProblem = webhookUrlProblem(url);
    if (urlProblem) return setProblem({ field: 'url', words: urlProblem });
    if (events.length === 0) return setProblem({ field: 'events', words: 'Tick at least one event.' });
    setProblem(undefined);
    create.send({ url: url.trim(), events });
  }

  return (
    <>
      <form className="form" onSubmit={submit} noValidate aria-label="Add a webhook">
        <label htmlFor={urlId}>Address that receives the notifications</label>
        <p className="hint" id={`${urlId}-hint`}>
          An https:// address of your server. Each notification is a signed POST with the list’s counts and a
          link to download its results.
        </p>
        <input
          id={urlId}
          className="input"
          type="url"
          inputMode="url"
          autoComplete="url"
          placeholder="https://example.com/hooks/emailverify"
          value={url}
          onChange={(event) => setUrl(event.target.value)}
          aria-invalid={problem?.field === 'url'}
          aria-describedby={problem?.field === 'url' ? `${urlId}-hint ${urlErrorId}` : `${urlId}-hint`}
        />
        {problem?.field === 'url' ? (
          <p id={urlErrorId} className="field-error">
            {problem.words}
          </p>
        ) : null}
        <fieldset aria-describedby={problem?.field === 'events' ? eventsErrorId : undefined}>
          <legend>Send a notification when</legend>
          {EVENTS.map(({ event, label, hint }) => (
            <label key={event} className="checkbox">
              <input
                type="checkbox"
                checked={events.includes(event)}
                onChange={(e) =>
                  setEvents((now) =>
                    e.target.checked ? [...now, event] : now.filter((existing) => existing !== event),
                  )
                }
              />
              {label} <span className="hint">({hint})</span>
            </label>
          ))}
          {problem?.field === 'events' ? (
            <p id={eventsErrorId} className="field-error">
              {problem.words}
            </p>
          ) : null}
        </fieldset>
        <FormSubmit request={create.mutation} label="Add webhook" doing="Adding the webhook" />
      </form>
      {created ? (
        <ShownOnce
          title="Signing secret of the new webhook"
          label="Signing secret"
          secret={created.secret}
          onDone={create.forget}
        >
          <p className="hint">
            Your receiver uses it to check that each notification to{' '}
            <span className="mono">{created.url}</span> comes from this service (docs: “Checking the
            signature”).
          </p>
        </ShownOnce>
      ) : null}
    </>
  );
}
