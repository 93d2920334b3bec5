import type { Schemas } from '@emailverify/client';
import { Link } from 'react-router';
import { DataTable, numeric } from '../../components/DataTable';
import { EmptyState } from '../../components/EmptyState';
import { JobStateBadge } from '../../components/JobStateBadge';
import { formatCount, formatDateTime } from '../../format/numbers';

type Job = Schemas['FileJobList']['jobs'][number];

const CAPTION = 'Your latest uploaded lists';
const COLUMNS = ['File', 'State', numeric('Progress'), numeric('Valid'), 'Uploaded'];

/** The latest file jobs, each linking to its page; "upload your first list" when there is none. */
export function RecentJobs({ jobs }: { jobs: Job[] }) {
  if (jobs.length === 0) {
    return (
      <EmptyState
        title="No lists yet"
        action={
          <Link className="button button--primary" to="/files">
            Upload your first list
          </Link>
        }
      />
    );
  }
  return (
    <>
      <DataTable label={CAPTION} caption={CAPTION} columns={COLUMNS}>
        {jobs.map((job) => (
          <tr key={job.task_id}>
            <th scope="row">
              <Link to={`/files/${job.task_id}`}>{job.file_name}</Link>
            </th>
            <td>
              <JobStateBadge state={job.status} />
            </td>
            <td className="num">{Math.round(job.progress)}%</td>
            <td className="num">
              {formatCount(job.valid_emails)} of {formatCount(job.total_emails)}
            </td>
            <td>{formatDateTime(job.created_at)}</td>
          </tr>
        ))}
      </DataTable>
      <p>
        <Link to="/files">All lists</Link>
      </p>
    </>
  );
}
