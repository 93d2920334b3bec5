import { type FormEvent, useId, useState } from 'react';
import { clientFor, unwrap } from '../api/client';
import { queryClient, queryKeys } from '../api/queries';
import { signIn } from '../api/session';
import { ErrorMessage } from '../components/ErrorMessage';
import { usePageTitle } from '../components/usePageTitle';

/**
 * Sign-in with an API key: tried against GET /v1/credits before it is kept (in sessionStorage only). The key
 * never goes into the URL: the form is handled here and never submitted.
 */
export function SignInPage({ reason }: { reason: string | undefined }) {
  usePageTitle('Sign in');
  const inputId = useId();
  const hintId = useId();
  const [apiKey, setApiKey] = useState('');
  const [error, setError] = useState<unknown>();
  const [busy, setBusy] = useState(false);

  async function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const key = apiKey.trim();
    if (key === '') return;
    setBusy(true);
    setError(undefined);
    try {
      const credits = await unwrap(clientFor(key).GET('/v1/credits'));
      queryClient.clear();
      queryClient.setQueryData(queryKeys.credits, credits);
      signIn(key);
    } catch (failure) {
      setError(failure);
      setBusy(false);
    }
  }

  return (
    <main id="main" className="sign-in">
      <h1>Sign in to the e-mail verification console</h1>
      {reason ? (
        <div className="notice notice--warn" role="alert">
          <p>{reason}</p>
        </div>
      ) : null}
      <form className="form" onSubmit={(event) => void submit(event)} noValidate>
        <label htmlFor={inputId}>API key</label>
        <input
          id={inputId}
          className="input input--mono"
          type="password"
          name="api-key"
          autoComplete="off"
          spellCheck={false}
          required
          aria-describedby={hintId}
          value={apiKey}
          onChange={(event) => setApiKey(event.target.value)}
        />
        <p id={hintId} className="hint">
          Your key starts with <code>ev_</code> (or <code>ev_test_</code> for a sandbox key). It is kept in
          this browser tab only, until you sign out or close the tab.
        </p>
        <button type="submit" className="button button--primary" disabled={busy || apiKey.trim() === ''}>
          {busy ? 'Signing in…' : 'Sign in'}
        </button>
      </form>
      {error !== undefined ? <ErrorMessage error={error} context="Signing in" /> : null}
    </main>
  );
}
