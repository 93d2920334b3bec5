import { useQuery } from '@tanstack/react-query';
import { Link } from 'react-router';
import { EmptyState } from '../../components/EmptyState';
import { ErrorMessage } from '../../components/ErrorMessage';
import { Loading } from '../../components/Loading';
import { TableWrap } from '../../components/TableWrap';
import { formatCount, formatDateTime } from '../../format/numbers';
import { useCursorPages } from '../account/cursor-pages';
import { Pager } from '../account/Pager';
import { loadingWords } from '../account/scope';
import { amountWords, ledgerEntryWords, ledgerReference, signedAmount } from './ledger';
import { fetchLedger, keyKeys } from './queries';

/** The credits ledger, newest first, a page at a time. */
export function Ledger() {
  const pages = useCursorPages();
  const ledger = useQuery({
    queryKey: keyKeys.ledger(pages.cursor),
    queryFn: ({ signal }) => fetchLedger(pages.cursor, signal),
    placeholderData: (previous) => previous,
  });

  if (ledger.isPending) return <Loading label={loadingWords(ledger.fetchStatus, 'Loading the ledger…')} />;
  if (ledger.isError) {
    return (
      <ErrorMessage error={ledger.error} context="Loading the ledger" onRetry={() => void ledger.refetch()} />
    );
  }
  const { entries, next_cursor: next } = ledger.data;
  if (entries.length === 0 && pages.page === 1) {
    return (
      <EmptyState title="No credit movements yet">
        <p>Credits added to the account, and what each verification used, are listed here.</p>
      </EmptyState>
    );
  }
  return (
    <>
      <TableWrap label="Credit ledger table">
        <table>
          <caption className="visually-hidden">Credit ledger, newest first, page {pages.page}</caption>
          <thead>
            <tr>
              <th scope="col">When</th>
              <th scope="col">What</th>
              <th scope="col" className="num">
                Credits
              </th>
              <th scope="col" className="num">
                Balance after
              </th>
              <th scope="col">For</th>
            </tr>
          </thead>
          <tbody>
            {entries.map((entry) => {
              const reference = ledgerReference(entry);
              return (
                <tr key={entry.id}>
                  <th scope="row">{formatDateTime(entry.created_at)}</th>
                  <td>{ledgerEntryWords(entry)}</td>
                  <td className="num">
                    <span aria-hidden="true">{signedAmount(entry.amount)}</span>
                    <span className="visually-hidden">{amountWords(entry)}</span>
                  </td>
                  <td className="num">{formatCount(entry.balance_after)}</td>
                  <td>
                    {reference?.kind === 'job' ? (
                      <Link to={`/files/${reference.id}`}>Open the list</Link>
                    ) : null}
                    {reference?.kind === 'request' ? (
                      <span className="mono" title="The request’s X-Request-Id, to quote to support">
                        {reference.id}
                      </span>
                    ) : null}
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      </TableWrap>
      <Pager
        label="Ledger pages"
        things="entries"
        page={pages.page}
        hasOlder={Boolean(next)}
        onNewer={pages.newer}
        onOlder={() => pages.older(next)}
        busy={ledger.isFetching && ledger.isPlaceholderData}
      />
    </>
  );
}
