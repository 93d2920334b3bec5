import { PageHeader } from '../../components/PageHeader';
import { BulkVerify } from './BulkVerify';
import { SingleVerify } from './SingleVerify';
import './verify.css';

export default function VerifyPage() {
  return (
    <>
      <PageHeader title="Verify">
        Check one address, or paste up to 100 at once. Each verification costs a credit unless its answer was
        already known.
      </PageHeader>
      <SingleVerify />
      <BulkVerify />
    </>
  );
}
