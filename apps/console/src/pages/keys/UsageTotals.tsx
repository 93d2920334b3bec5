import { useQuery } from '@tanstack/react-query';
import { Link } from 'react-router';
import { api, unwrap } from '../../api/client';
import { queryKeys, useCredits } from '../../api/queries';
import { ErrorMessage } from '../../components/ErrorMessage';
import { Loading } from '../../components/Loading';
import { formatCount } from '../../format/numbers';
import { loadingWords } from '../../format/waiting';
import { Fact, Facts } from '../../components/Facts';

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
      <Facts className="keys-usage">
        <Fact term="Balance now">{formatCount(credits.data.credits_balance)} credits</Fact>
        <Fact term="Credits used">{formatCount(Math.max(0, totals.credits_used))}</Fact>
        <Fact term="Credits added">{formatCount(totals.credits_added)}</Fact>
        <Fact term="Addresses verified">{formatCount(totals.verifications.total)}</Fact>
        <Fact term="Sandbox verifications">
          {formatCount(totals.sandbox_verifications.total)} (never charged)
        </Fact>
      </Facts>
      <p className="hint">
        From {usage.data.from} to {usage.data.to} (UTC).{' '}
        <Link to="/">The chart by day is on the Overview.</Link>
      </p>
    </>
  );
}
