import type { Schemas } from '@emailverify/client';
import { Link } from 'react-router';
import { TableWrap } from '../../components/TableWrap';
import { EmptyState } from '../../components/EmptyState';
import { JobStateBadge } from '../../components/JobStateBadge';
import { formatCount, formatDateTime } from '../../format/numbers';

type Job = Schemas['FileJobList']['jobs'][number];

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
      <TableWrap label="Your latest uploaded lists">
        <table>
          <caption className="visually-hidden">Your latest uploaded lists</caption>
          <thead>
            <tr>
              <th scope="col">File</th>
              <th scope="col">State</th>
              <th scope="col" className="num">
                Progress
              </th>
              <th scope="col" className="num">
                Valid
              </th>
              <th scope="col">Uploaded</th>
            </tr>
          </thead>
          <tbody>
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
          </tbody>
        </table>
      </TableWrap>
      <p>
        <Link to="/files">All lists</Link>
      </p>
    </>
  );
}
