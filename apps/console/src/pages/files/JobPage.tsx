// PLACEHOLDER: this page is still to be built; it replaces this file (see issue 34).
import { EmptyState } from '../../components/EmptyState';
import { PageHeader } from '../../components/PageHeader';

export default function JobPage() {
  return (
    <>
      <PageHeader title="File job">One job's progress, verdicts and downloads.</PageHeader>
      <EmptyState title="This page is on its way." />
    </>
  );
}
