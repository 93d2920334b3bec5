import { useQuery } from '@tanstack/react-query';
import { Link } from 'react-router';
import { api, unwrap } from '../../api/client';
import { queryKeys, useCredits } from '../../api/queries';
import { ErrorMessage } from '../../components/ErrorMessage';
import { Loading } from '../../components/Loading';
import { formatCount } from '../../format/numbers';
import { loadingWords } from '../account/scope';

/** The balance and the last 30 days' totals (the chart is on the Overview). */
export function UsageTotals() {
  const credits = useCredits();
  const usage = useQuery({
    queryKey: queryKeys.usage,
    queryFn: ({ signal }) => unwrap(api().GET('/v1/credits/usage', { signal })),
  });
  if (credits.isPending || usage.isPending)
    return <Loading label={loadingWords(usage.fetchStatus, 'Loading your usage…')} />;
  if (credits.isError || usage.isError) {
    return (
      <ErrorMessage
        error={credits.error ?? usage.error}
        context="Loading your usage"
        onRetry={() => {
          void credits.refetch();
          void usage.refetch();
        }}
      />
    );
  }
  const { totals } = usage.data;
  return (
    <>
      <dl className="facts keys-usage">
        <dt>Balance now</dt>
        <dd>{formatCount(credits.data.credits_balance)} credits</dd>
        <dt>Credits used</dt>
        <dd>{formatCount(Math.max(0, totals.credits_used))}</dd>
        <dt>Credits added</dt>
        <dd>{formatCount(totals.credits_added)}</dd>
        <dt>Addresses verified</dt>
        <dd>{formatCount(totals.verifications.total)}</dd>
        <dt>Sandbox verifications</dt>
        <dd>{formatCount(totals.sandbox_verifications.total)} (never charged)</dd>
      </dl>
      <p className="hint">
        From {usage.data.from} to {usage.data.to} (UTC).{' '}
        <Link to="/">The chart by day is on the Overview.</Link>
      </p>
    </>
  );
}
