import { useLocation } from 'react-router';
import { PageHeader } from '../../components/PageHeader';
import { JobList } from './JobList';
import { UploadPanel } from './UploadPanel';
import './files.css';

export default function FilesPage() {
  const deleted = (useLocation().state as { deleted?: string } | null)?.deleted;
  return (
    <>
      <PageHeader title="Files">
        Upload a list of addresses, watch it being verified and download the addresses that are safe to send
        to.
      </PageHeader>
      {deleted ? (
        <p className="notice" role="status">
          {deleted} was deleted with its files.
        </p>
      ) : null}
      <UploadPanel />
      <JobList />
    </>
  );
}
