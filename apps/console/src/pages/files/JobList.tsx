import { useQuery } from '@tanstack/react-query';
import { useRef, useState } from 'react';
import { Link } from 'react-router';
import { EmptyState } from '../../components/EmptyState';
import { ErrorMessage } from '../../components/ErrorMessage';
import { JobStateBadge } from '../../components/JobStateBadge';
import { Loading } from '../../components/Loading';
import { formatCount, formatDateTime } from '../../format/numbers';
import { retryable } from './errors';
import { jobCard, pollDelay, retryAfterMs } from './job-card';
import { JobActions } from './JobActions';
import { fetchPage, filesKeys, type JobListItem } from './queries';

/** What changes while jobs run: compared between replies to back the polling off while nothing moves. */
function movement(jobs: JobListItem[]): string {
  return jobs
    .filter((job) => jobCard(job).active)
    .map((job) => `${job.task_id}:${job.status}:${job.processed_emails}`)
    .join(',');
}

/**
 * The account's jobs, newest first, a page at a time, with live progress. The listing endpoint cannot wait for
 * a change (the status endpoint's `timeout` wakes only when a job ends), so while a listed job is under way the
 * page asks again: every 2 s while progress moves, slower (to 15 s) while it does not, and not at all once no
 * listed job runs or the tab is hidden.
 */
export function JobList() {
  // The cursors of the pages before this one: back is a pop, on is a push.
  const [cursors, setCursors] = useState<string[]>([]);
  const cursor = cursors.at(-1);
  const seen = useRef({ updatedAt: 0, movement: '', unchanged: 0 });
  const list = useQuery({
    queryKey: filesKeys.page(cursor),
    queryFn: ({ signal }) => fetchPage(cursor, signal),
    refetchInterval: (query) => {
      const data = query.state.data;
      if (!data) return false;
      const now = movement(data.jobs);
      if (now === '') return false;
      const last = seen.current;
      if (query.state.dataUpdatedAt !== last.updatedAt) {
        last.unchanged = now === last.movement ? last.unchanged + 1 : 0;
        last.updatedAt = query.state.dataUpdatedAt;
        last.movement = now;
      }
      return Math.max(pollDelay(last.unchanged), retryAfterMs(query.state.error));
    },
  });

  return (
    <section aria-labelledby="jobs-heading" className="files-jobs">
      <h2 id="jobs-heading">Your lists</h2>
      {list.isPending && list.fetchStatus === 'paused' ? (
        <p className="notice notice--warn" role="status">
          You are offline: your lists load as soon as the connection is back.
        </p>
      ) : null}
      {list.isPending && list.fetchStatus !== 'paused' ? <Loading label="Loading your lists…" /> : null}
      {list.isError && !list.data ? (
        <ErrorMessage
          error={list.error}
          context="Loading your lists"
          onRetry={retryable(list.error) ? () => void list.refetch() : undefined}
        />
      ) : null}
      {list.isError && list.data ? (
        <p className="notice notice--warn" role="status">
          The lists could not be refreshed just now; they show the last known progress. The console tries
          again on its own.
        </p>
      ) : null}
      {list.data && list.data.jobs.length === 0 && cursors.length === 0 ? (
        <EmptyState title="Upload your first list">
          <p>
            Drop a CSV, XLSX or TXT file of addresses above. You can watch it being verified here, then
            download the addresses that are safe to send to.
          </p>
        </EmptyState>
      ) : null}
      {list.data && list.data.jobs.length > 0 ? (
        <ul className="files-job-list">
          {list.data.jobs.map((job) => (
            <JobItem key={job.task_id} job={job} />
          ))}
        </ul>
      ) : null}
      {list.data && (cursors.length > 0 || list.data.next_cursor) ? (
        <nav className="actions files-pages" aria-label="Pages of lists">
          <button
            type="button"
            className="button"
            disabled={cursors.length === 0}
            onClick={() => setCursors((stack) => stack.slice(0, -1))}
          >
            Newer lists
          </button>
          <button
            type="button"
            className="button"
            disabled={!list.data.next_cursor}
            onClick={() => {
              const next = list.data.next_cursor;
              if (next) setCursors((stack) => [...stack, next]);
            }}
          >
            Older lists
          </button>
        </nav>
      ) : null}
    </section>
  );
}

function JobItem({ job }: { job: JobListItem }) {
  const card = jobCard(job);
  const progressId = `progress-${job.task_id}`;
  return (
    <li className="card files-job">
      <h3 className="files-job__name">
        <Link to={`/files/${job.task_id}`} state={{ fileName: job.file_name }}>
          {job.file_name}
        </Link>
      </h3>
      <p className="files-job__meta">
        <JobStateBadge state={job.status} /> <span>Uploaded {formatDateTime(job.created_at)}</span>
      </p>
      <div className="files-progress">
        <label htmlFor={progressId} className="visually-hidden">
          Progress of {job.file_name}
        </label>
        <progress id={progressId} max={100} value={card.percent}>
          {card.percent}%
        </progress>
        <span>{card.progressText}</span>
      </div>
      <p className="files-job__counts">
        {formatCount(job.valid_emails)} valid, {formatCount(job.invalid_emails)} invalid,{' '}
        {formatCount(job.unknown_emails)} unknown
        {job.credits_used !== null ? `; ${formatCount(job.credits_used)} credits used` : ''}
      </p>
      {card.filesDeleted ? (
        <p className="hint">Its files were deleted after the retention period; the numbers stay.</p>
      ) : null}
      <JobActions jobId={job.task_id} fileName={job.file_name} card={card} />
    </li>
  );
}
