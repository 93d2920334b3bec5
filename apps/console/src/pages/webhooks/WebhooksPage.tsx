// PLACEHOLDER: this page is still to be built; it replaces this file (see issue 34).
import { EmptyState } from '../../components/EmptyState';
import { PageHeader } from '../../components/PageHeader';

export default function WebhooksPage() {
  return (
    <>
      <PageHeader title="Webhooks">Notifications of finished file jobs, and their delivery log.</PageHeader>
      <EmptyState title="This page is on its way." />
    </>
  );
}
