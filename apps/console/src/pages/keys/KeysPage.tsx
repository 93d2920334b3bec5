import { useQuery } from '@tanstack/react-query';
import { useRef, useState } from 'react';
import { isScopeRefusal } from '../../api/problem';
import { useCredits } from '../../api/queries';
import { EmptyState } from '../../components/EmptyState';
import { PageHeader } from '../../components/PageHeader';
import { QueryState } from '../../components/QueryState';
import { StatusLine } from '../../components/StatusLine';
import { CreateKey } from './CreateKey';
import { KeyTable } from './KeyTable';
import { Ledger } from './Ledger';
import { fetchKeys, keyKeys } from './queries';
import { UsageTotals } from './UsageTotals';
import './keys.css';

export default function KeysPage() {
  const [said, setSaid] = useState('');
  const listHeading = useRef<HTMLHeadingElement>(null);
  const credits = useCredits();
  const keys = useQuery({ queryKey: keyKeys.list, queryFn: ({ signal }) => fetchKeys(signal) });
  const refused = isScopeRefusal(keys.error);

  return (
    <>
      <PageHeader title="Keys & usage">Your API keys, and where your credits went.</PageHeader>
      <section aria-labelledby="keys-usage-heading">
        <h2 id="keys-usage-heading">Usage, last 30 days</h2>
        <UsageTotals />
      </section>

      <section aria-labelledby="keys-list-heading">
        <h2 id="keys-list-heading" ref={listHeading} tabIndex={-1}>
          API keys
        </h2>
        <StatusLine>{said}</StatusLine>
        <QueryState query={keys} loading="Loading your keys…" context="Loading your keys" />
        {keys.data && keys.data.keys.length === 0 ? (
          <EmptyState title="No keys to show">
            <p>Create one below.</p>
          </EmptyState>
        ) : null}
        {keys.data && keys.data.keys.length > 0 ? (
          <KeyTable
            keys={keys.data.keys}
            currentKeyId={credits.data?.api_key_id}
            listHeading={listHeading}
            onRevoked={setSaid}
          />
        ) : null}
      </section>

      <section aria-labelledby="keys-create-heading" hidden={refused}>
        <h2 id="keys-create-heading">Create a key</h2>
        <CreateKey onCreated={() => setSaid('')} />
      </section>

      <section aria-labelledby="keys-ledger-heading">
        <h2 id="keys-ledger-heading">Credit ledger</h2>
        <p className="hint">Every grant, charge and refund, newest first.</p>
        <Ledger />
      </section>
    </>
  );
}
