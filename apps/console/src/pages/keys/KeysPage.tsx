// PLACEHOLDER: this page is still to be built; it replaces this file (see issue 34).
import { EmptyState } from '../../components/EmptyState';
import { PageHeader } from '../../components/PageHeader';

export default function KeysPage() {
  return (
    <>
      <PageHeader title="Keys & usage">API keys, and the credit ledger.</PageHeader>
      <EmptyState title="This page is on its way." />
    </>
  );
}
