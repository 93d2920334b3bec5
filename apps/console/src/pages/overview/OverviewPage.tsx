import { PageHeader } from '../../components/PageHeader';

export default function OverviewPage() {
  return <PageHeader title="Overview" />;
}
