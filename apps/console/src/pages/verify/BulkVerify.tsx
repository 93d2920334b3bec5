import { useMutation } from '@tanstack/react-query';
import { TableWrap } from '../../components/TableWrap';
import { type FormEvent, useId, useState } from 'react';
import { Link } from 'react-router';
import { api, unwrap } from '../../api/client';
import { queryClient, queryKeys } from '../../api/queries';
import { ErrorMessage } from '../../components/ErrorMessage';
import { Loading } from '../../components/Loading';
import { StatusBadge } from '../../components/StatusBadge';
import { formatCount, formatScore } from '../../format/numbers';
import { STATUS_LOOK, countByStatus } from '../../format/status';
import { BULK_LIMIT, parseAddresses } from './addresses';

function plural(n: number): string {
  return `${formatCount(n)} address${n === 1 ? '' : 'es'}`;
}

/** Up to 100 pasted addresses, verified at once (POST /v1/verify/bulk), in a table. */
export function BulkVerify() {
  const textId = useId();
  const countId = useId();
  const [text, setText] = useState('');
  const addresses = parseAddresses(text);
  const tooMany = addresses.length > BULK_LIMIT;
  const verify = useMutation({
    mutationFn: (emails: string[]) => unwrap(api().POST('/v1/verify/bulk', { body: { emails } })),
    onSettled: () => void queryClient.invalidateQueries({ queryKey: queryKeys.credits }),
  });

  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    if (addresses.length > 0 && !tooMany) verify.mutate(addresses);
  }

  return (
    <section aria-labelledby="bulk-heading">
      <h2 id="bulk-heading">Several addresses</h2>
      <form className="form verify-bulk" onSubmit={submit} noValidate>
        <label htmlFor={textId}>Addresses, one per line (at most {BULK_LIMIT})</label>
        <textarea
          id={textId}
          className="textarea"
          name="emails"
          spellCheck={false}
          aria-describedby={countId}
          aria-invalid={tooMany}
          value={text}
          onChange={(event) => setText(event.target.value)}
        />
        <p id={countId} className={tooMany ? 'hint verify-bulk__over' : 'hint'}>
          {tooMany ? (
            <>
              <span aria-hidden="true">⚠ </span>
              {formatCount(addresses.length)} addresses: at most {BULK_LIMIT} at once. For a longer list,{' '}
              <Link to="/files">upload a file</Link>.
            </>
          ) : (
            `${plural(addresses.length)} (repeats counted once)`
          )}
        </p>
        <div className="actions">
          <button
            type="submit"
            className="button button--primary"
            disabled={verify.isPending || addresses.length === 0 || tooMany}
          >
            {addresses.length > 0 ? `Verify ${plural(addresses.length)}` : 'Verify the addresses'}
          </button>
        </div>
      </form>
      <div aria-live="polite">
        {verify.isPending ? (
          <Loading
            label={
              verify.isPaused
                ? 'Offline: the verification waits for the connection…'
                : `Verifying ${plural(addresses.length)}…`
            }
          />
        ) : null}
        {verify.isError ? <ErrorMessage error={verify.error} context="Verifying the addresses" /> : null}
      </div>
      {verify.data ? (
        <>
          <p className="verify-bulk__summary">
            {plural(verify.data.total_emails)} verified:{' '}
            {countByStatus(verify.data.results)
              .map(([status, count]) => `${formatCount(count)} ${STATUS_LOOK[status].label.toLowerCase()}`)
              .join(', ')}
            ; {formatCount(verify.data.credits_used)} credit{verify.data.credits_used === 1 ? '' : 's'} used.
          </p>
          <TableWrap label="Results of the addresses verified">
            <table>
              <caption className="visually-hidden">Results of the addresses verified</caption>
              <thead>
                <tr>
                  <th scope="col">Address</th>
                  <th scope="col">Status</th>
                  <th scope="col" className="num">
                    Score
                  </th>
                  <th scope="col">Deliverable</th>
                </tr>
              </thead>
              <tbody>
                {verify.data.results.map((result) => (
                  <tr key={result.email}>
                    <th scope="row" className="mono">
                      {result.email}
                    </th>
                    <td>
                      <StatusBadge status={result.status} />
                    </td>
                    <td className="num">{formatScore(result.score)}</td>
                    <td>{result.is_deliverable ? 'Yes' : 'No'}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </TableWrap>
        </>
      ) : null}
    </section>
  );
}
