import { useQuery } from '@tanstack/react-query';
import { Link } from 'react-router';
import { api, unwrap } from '../../api/client';
import { queryKeys } from '../../api/queries';
import { EmptyState } from '../../components/EmptyState';
import { ErrorMessage } from '../../components/ErrorMessage';
import { Loading } from '../../components/Loading';
import { PageHeader } from '../../components/PageHeader';
import { BalanceCard } from './BalanceCard';
import { RecentJobs } from './RecentJobs';
import { UsageChart } from './UsageChart';
import { isFirstVisit } from './usage';
import './overview.css';

const RECENT_JOBS = 5;

export default function OverviewPage() {
  const usage = useQuery({
    queryKey: queryKeys.usage,
    queryFn: ({ signal }) => unwrap(api().GET('/v1/credits/usage', { signal })),
  });
  const jobs = useQuery({
    queryKey: queryKeys.jobs(RECENT_JOBS),
    queryFn: ({ signal }) =>
      unwrap(api().GET('/v1/verify/file', { params: { query: { limit: RECENT_JOBS } }, signal })),
  });
  const firstVisit = usage.data && jobs.data && isFirstVisit(usage.data, jobs.data.jobs.length);

  return (
    <>
      <PageHeader title="Overview">Your balance, what you used lately, and your latest lists.</PageHeader>
      {firstVisit ? (
        <EmptyState
          title="Upload your first list"
          action={
            <div className="actions overview-first__actions">
              <Link className="button button--primary" to="/files">
                Upload a list
              </Link>
              <Link className="button" to="/verify">
                Verify one address
              </Link>
            </div>
          }
        >
          <p>
            Drop a CSV, Excel or text file of addresses on the Files page: each one is checked and you
            download the ones that are safe to send to. Or try a single address first.
          </p>
        </EmptyState>
      ) : null}
      <div className="cards overview-cards">
        <BalanceCard />
        <section className="card overview-usage" aria-labelledby="usage-heading">
          <h2 id="usage-heading">Credits used, last 30 days</h2>
          {usage.isPending ? <Loading label="Loading usage…" /> : null}
          {usage.isError ? (
            <ErrorMessage error={usage.error} context="Loading usage" onRetry={() => void usage.refetch()} />
          ) : null}
          {usage.data ? <UsageChart usage={usage.data} /> : null}
        </section>
      </div>
      <section aria-labelledby="jobs-heading">
        <h2 id="jobs-heading">Recent lists</h2>
        {jobs.isPending ? <Loading label="Loading your lists…" /> : null}
        {jobs.isError ? (
          <ErrorMessage error={jobs.error} context="Loading your lists" onRetry={() => void jobs.refetch()} />
        ) : null}
        {jobs.data ? <RecentJobs jobs={jobs.data.jobs} /> : null}
      </section>
    </>
  );
}
