import { useQuery } from '@tanstack/react-query';
import { Link, useLocation, useNavigate, useParams } from 'react-router';
import { useEffect, useRef } from 'react';
import { queryClient, queryKeys } from '../../api/queries';
import { JobStateBadge } from '../../components/JobStateBadge';
import { PageHeader } from '../../components/PageHeader';
import { QueryState } from '../../components/QueryState';
import { formatCount, formatDateTime } from '../../format/numbers';
import { DownloadPanel } from './DownloadPanel';
import { jobCard, retryAfterMs, verdictRows } from './job-card';
import { JobActions } from './JobActions';
import {
  fetchLatest,
  fetchStatus,
  filesKeys,
  knownFileName,
  STATUS_WAIT_SECONDS,
  type JobStatus,
} from './queries';
import { VerdictChart } from './VerdictChart';
import './files.css';
import { Fact, Facts } from '../../components/Facts';

/**
 * One job: its progress (live while it runs), the verdicts as a chart and a table, credits, and the downloads.
 * While the job runs each status request waits up to a few seconds for it to end (`timeout`), and the next one
 * follows its reply: progress every few seconds, the end as soon as it happens, nothing once it has ended or
 * while it is paused.
 */
export default function JobPage() {
  const jobId = useParams().id ?? '';
  const navigate = useNavigate();
  const stateName = (useLocation().state as { fileName?: string } | null)?.fileName;
  // The status reply has no file name: the list gave it (link state or its cache), else the latest 100 jobs.
  const known = stateName ?? knownFileName(jobId);
  const lookup = useQuery({
    queryKey: ['files', 'list', 'name-lookup'],
    queryFn: ({ signal }) => fetchLatest(signal),
    enabled: known === undefined,
  });
  const fileName = known ?? lookup.data?.jobs.find((job) => job.task_id === jobId)?.file_name;
  const key = filesKeys.status(jobId);
  const status = useQuery({
    queryKey: key,
    queryFn: ({ signal }) => {
      const previous = queryClient.getQueryData<JobStatus>(key);
      const wait = previous && jobCard(previous).active ? STATUS_WAIT_SECONDS : 0;
      return fetchStatus(jobId, wait, signal);
    },
    staleTime: 0,
    refetchInterval: (query) =>
      query.state.data && jobCard(query.state.data).active
        ? Math.max(1_000, retryAfterMs(query.state.error))
        : false,
  });
  const title = fileName ?? 'List verification';

  return (
    <>
      <PageHeader title={title}>
        <Link to="/files">All lists</Link>
      </PageHeader>
      <QueryState
        query={status}
        loading="Loading the job…"
        offline="You are offline: the job loads as soon as the connection is back."
        context="Loading the job"
        stale={
          <>
            The job could not be refreshed just now; this is its last known state.{' '}
            <button type="button" className="button button--link" onClick={() => void status.refetch()}>
              Refresh
            </button>
          </>
        }
      />
      {status.data ? (
        <JobDetails
          job={status.data}
          fileName={fileName ?? 'this list'}
          onDeleted={() => void navigate('/files', { state: { deleted: fileName ?? 'The list' } })}
        />
      ) : null}
    </>
  );
}

function JobDetails({
  job,
  fileName,
  onDeleted,
}: {
  job: JobStatus;
  fileName: string;
  onDeleted: () => void;
}) {
  const card = jobCard(job);
  const rows = verdictRows(job);
  const ended = card.look.ended;
  // Seen ending here: the lists and the balance (refunds, settled credits) are out of date.
  const wasEnded = useRef(ended);
  useEffect(() => {
    if (ended && !wasEnded.current) {
      void queryClient.invalidateQueries({ queryKey: ['files', 'list'] });
      void queryClient.invalidateQueries({ queryKey: queryKeys.credits });
    }
    wasEnded.current = ended;
  }, [ended]);
  return (
    <>
      <section aria-labelledby="progress-heading" className="files-section">
        <h2 id="progress-heading">Progress</h2>
        <p>
          <JobStateBadge state={job.status} />
        </p>
        <p className="visually-hidden" role="status">
          {ended ? `${fileName}: ${card.look.label}.` : ''}
        </p>
        <div className="files-progress files-progress--large">
          <label htmlFor="job-progress">Verification progress</label>
          <progress id="job-progress" max={100} value={card.percent}>
            {card.percent}%
          </progress>
          <span>{card.progressText}</span>
        </div>
        {job.status === 'failed' ? (
          <div className="notice notice--error" role="alert">
            <p className="notice__title">The verification failed</p>
            <p>
              {job.error?.message ?? 'The service could not finish this list.'} Credits not used were given
              back.
            </p>
          </div>
        ) : null}
        <Facts>
          <Fact term="Addresses">
            {formatCount(job.total_emails)} ({formatCount(job.unique_emails)} unique, from{' '}
            {formatCount(job.total_rows)} rows)
          </Fact>
          <Fact term="Credits used">
            {job.credits_used !== undefined && card.look.ended
              ? formatCount(job.credits_used)
              : 'Settled when the job ends; each unique address is charged once.'}
          </Fact>
          <Fact term="Started">{job.started_at ? formatDateTime(job.started_at) : 'Not yet'}</Fact>
          {job.completed_at ? <Fact term="Ended">{formatDateTime(job.completed_at)}</Fact> : null}
        </Facts>
        <JobActions jobId={job.task_id} fileName={fileName} card={card} onDeleted={onDeleted} />
      </section>
      <section aria-labelledby="verdicts-heading" className="files-section">
        <h2 id="verdicts-heading">Verdicts</h2>
        <VerdictChart rows={rows} running={!card.look.ended} />
      </section>
      <section aria-labelledby="download-heading" className="files-section">
        <h2 id="download-heading">Download</h2>
        <DownloadPanel jobId={job.task_id} fileName={fileName} card={card} />
      </section>
    </>
  );
}
