// PLACEHOLDER: this page is still to be built; it replaces this file (see issue 34).
import { EmptyState } from '../../components/EmptyState';
import { PageHeader } from '../../components/PageHeader';

export default function FilesPage() {
  return (
    <>
      <PageHeader title="Files">Upload a list of addresses and follow its verification.</PageHeader>
      <EmptyState title="This page is on its way." />
    </>
  );
}
