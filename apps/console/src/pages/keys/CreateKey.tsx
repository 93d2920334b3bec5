import type { Schemas } from '@emailverify/client';
import { type FormEvent, useId, useState } from 'react';
import { api, unwrap } from '../../api/client';
import { queryClient } from '../../api/queries';
import { useSession } from '../../api/session';
import { FormSubmit } from '../../components/FormSubmit';
import { ShownOnce } from '../../components/ShownOnce';
import { useSecretReply } from '../../hooks/secret-reply';
import {
  dateFieldValue,
  EXPIRY_CHOICES,
  type ExpiryChoice,
  expiryOf,
  keyPrefixWords,
  modeLook,
  SCOPE_HINTS,
  scopeWords,
} from './key-display';
import { keyKeys } from './queries';

type Body = Schemas['CreateKeyRequest'];

/** The form that makes a key (name, live or sandbox, scope and expiry), then the new key shown once. */
export function CreateKey({ onCreated }: { onCreated: () => void }) {
  const { sandbox: sandboxSession } = useSession();
  const [name, setName] = useState('');
  const [sandbox, setSandbox] = useState(sandboxSession);
  const [scope, setScope] = useState<Body['scope']>('full');
  const [expiry, setExpiry] = useState<ExpiryChoice>('never');
  const [date, setDate] = useState('');
  const [problem, setProblem] = useState<{ field: 'name' | 'date'; words: string }>();
  const ids = { name: useId(), expiry: useId(), date: useId(), error: useId() };
  const create = useSecretReply(
    (body: Body) => unwrap(api().POST('/v1/keys', { body })),
    () => {
      setName('');
      setExpiry('never');
      setDate('');
      void queryClient.invalidateQueries({ queryKey: keyKeys.list });
      onCreated();
    },
  );
  const created = create.reply;

  function submit(event: FormEvent): void {
    event.preventDefault();
    const trimmed = name.trim();
    if (trimmed === '')
      return setProblem({ field: 'name', words: 'Give the key a name, such as “staging server”.' });
    const chosen = expiryOf(expiry, date);
    if ('problem' in chosen) return setProblem({ field: 'date', words: chosen.problem });
    setProblem(undefined);
    create.send({
      name: trimmed,
      sandbox: sandboxSession || sandbox,
      scope,
      ...(chosen.expiresAt ? { expires_at: chosen.expiresAt } : {}),
    });
  }

  const tomorrow = dateFieldValue(new Date(Date.now() + 24 * 60 * 60 * 1000));
  const error = (field: 'name' | 'date') =>
    problem?.field === field ? (
      <p id={ids.error} className="field-error">
        {problem.words}
      </p>
    ) : null;

  return (
    <>
      <form className="form" onSubmit={submit} noValidate aria-label="Create a key">
        <label htmlFor={ids.name}>Name</label>
        <input
          id={ids.name}
          className="input"
          type="text"
          maxLength={100}
          autoComplete="off"
          placeholder="staging server"
          value={name}
          onChange={(event) => setName(event.target.value)}
          aria-invalid={problem?.field === 'name'}
          aria-describedby={problem?.field === 'name' ? ids.error : undefined}
        />
        {error('name')}
        <fieldset>
          <legend>Mode</legend>
          <label className="checkbox">
            <input
              type="radio"
              name="key-mode"
              checked={!sandbox && !sandboxSession}
              disabled={sandboxSession}
              onChange={() => setSandbox(false)}
            />
            Live: real verifications, charged to the balance
          </label>
          <label className="checkbox">
            <input
              type="radio"
              name="key-mode"
              checked={sandbox || sandboxSession}
              onChange={() => setSandbox(true)}
            />
            Sandbox: test answers, never charged
          </label>
          {sandboxSession ? (
            <p className="hint">You are signed in with a sandbox key, which can make sandbox keys only.</p>
          ) : null}
        </fieldset>
        <fieldset>
          <legend>Scope</legend>
          {(['full', 'verify'] as const).map((value) => (
            <label key={value} className="checkbox">
              <input
                type="radio"
                name="key-scope"
                checked={scope === value}
                onChange={() => setScope(value)}
              />
              {value === 'full' ? 'Full access' : 'Verification only'}: {SCOPE_HINTS[value]}
            </label>
          ))}
        </fieldset>
        <label htmlFor={ids.expiry}>Expires</label>
        <select
          id={ids.expiry}
          value={expiry}
          onChange={(event) => setExpiry(event.target.value as ExpiryChoice)}
        >
          {EXPIRY_CHOICES.map((choice) => (
            <option key={choice.value} value={choice.value}>
              {choice.label}
            </option>
          ))}
        </select>
        {expiry === 'date' ? (
          <>
            <label htmlFor={ids.date}>Last day the key works</label>
            <input
              id={ids.date}
              className="input"
              type="date"
              min={tomorrow}
              value={date}
              onChange={(event) => setDate(event.target.value)}
              aria-invalid={problem?.field === 'date'}
              aria-describedby={problem?.field === 'date' ? ids.error : undefined}
            />
          </>
        ) : null}
        {error('date')}
        <FormSubmit request={create.mutation} label="Create key" doing="Creating the key" />
      </form>
      {created ? (
        <ShownOnce
          title={`Your new key “${created.name}”`}
          label="API key"
          secret={created.api_key}
          onDone={create.forget}
        >
          <p className="hint">
            {modeLook(created.mode).label}, {scopeWords(created.scope).toLowerCase()}. The list shows it as{' '}
            <span className="mono">{keyPrefixWords(created.prefix)}</span>. Send it in the SVC-API-KEY header.
          </p>
        </ShownOnce>
      ) : null}
    </>
  );
}
