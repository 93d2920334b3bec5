import { useMutation } from '@tanstack/react-query';
import { type FormEvent, useId, useRef, useState } from 'react';
import { api, unwrap } from '../../api/client';
import { queryClient, queryKeys } from '../../api/queries';
import { ErrorMessage } from '../../components/ErrorMessage';
import { Loading } from '../../components/Loading';
import { ResultCard } from './ResultCard';

/** One address at a time, with its result card. */
export function SingleVerify() {
  const inputId = useId();
  const smtpId = useId();
  const input = useRef<HTMLInputElement>(null);
  const [email, setEmail] = useState('');
  const [checkSmtp, setCheckSmtp] = useState(false);
  const verify = useMutation({
    mutationFn: (body: { email: string; check_smtp: boolean }) =>
      unwrap(api().POST('/v1/verify/single', { body })),
    onSettled: () => void queryClient.invalidateQueries({ queryKey: queryKeys.credits }),
  });

  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const address = email.trim();
    if (address !== '') verify.mutate({ email: address, check_smtp: checkSmtp });
  }

  function takeSuggestion(address: string) {
    setEmail(address);
    verify.reset();
    input.current?.focus();
  }

  return (
    <section aria-labelledby="single-heading">
      <h2 id="single-heading">One address</h2>
      <form className="form verify-single" onSubmit={submit} noValidate>
        <label htmlFor={inputId}>E-mail address</label>
        <div className="verify-single__row">
          <input
            ref={input}
            id={inputId}
            className="input"
            type="email"
            name="email"
            autoComplete="off"
            spellCheck={false}
            placeholder="jane.doe@example.com"
            value={email}
            onChange={(event) => setEmail(event.target.value)}
          />
          <button
            type="submit"
            className="button button--primary"
            disabled={verify.isPending || email.trim() === ''}
          >
            Verify
          </button>
        </div>
        <label className="checkbox" htmlFor={smtpId}>
          <input
            id={smtpId}
            type="checkbox"
            checked={checkSmtp}
            onChange={(event) => setCheckSmtp(event.target.checked)}
          />
          Ask the mail server whether the mailbox exists (slower, more certain)
        </label>
      </form>
      <div aria-live="polite">
        {verify.isPending ? (
          <Loading
            label={verify.isPaused ? 'Offline: the verification waits for the connection…' : 'Verifying…'}
          />
        ) : null}
        {verify.isError ? <ErrorMessage error={verify.error} context="Verifying" /> : null}
        {verify.data ? <ResultCard result={verify.data} onSuggestion={takeSuggestion} /> : null}
      </div>
    </section>
  );
}
