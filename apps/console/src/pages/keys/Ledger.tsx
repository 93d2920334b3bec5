import { useQuery } from '@tanstack/react-query';
import { Link } from 'react-router';
import { DataTable, numeric } from '../../components/DataTable';
import { EmptyState } from '../../components/EmptyState';
import { Pager } from '../../components/Pager';
import { QueryState } from '../../components/QueryState';
import { formatCount, formatDateTime } from '../../format/numbers';
import { useCursorPages } from '../../hooks/cursor-pages';
import { amountWords, ledgerEntryWords, ledgerReference, signedAmount } from './ledger';
import { fetchLedger, keyKeys } from './queries';

const COLUMNS = ['When', 'What', numeric('Credits'), numeric('Balance after'), 'For'];

/** The credits ledger, newest first, a page at a time. */
export function Ledger() {
  const pages = useCursorPages();
  const ledger = useQuery({
    queryKey: keyKeys.ledger(pages.cursor),
    queryFn: ({ signal }) => fetchLedger(pages.cursor, signal),
    placeholderData: (previous) => previous,
  });

  if (ledger.isPending || ledger.isError) {
    return <QueryState query={ledger} loading="Loading the ledger…" context="Loading the ledger" />;
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
      <DataTable
        label="Credit ledger table"
        caption={`Credit ledger, newest first, page ${pages.page}`}
        columns={COLUMNS}
      >
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
                {reference?.kind === 'job' ? <Link to={`/files/${reference.id}`}>Open the list</Link> : null}
                {reference?.kind === 'request' ? (
                  <span className="mono" title="The request’s X-Request-Id, to quote to support">
                    {reference.id}
                  </span>
                ) : null}
              </td>
            </tr>
          );
        })}
      </DataTable>
      <Pager
        label="Ledger pages"
        things="entries"
        pages={pages}
        next={next}
        busy={ledger.isFetching && ledger.isPlaceholderData}
      />
    </>
  );
}
