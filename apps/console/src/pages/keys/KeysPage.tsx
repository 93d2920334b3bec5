import type { Schemas } from '@emailverify/client';
import { useQuery } from '@tanstack/react-query';
import { useRef, useState } from 'react';
import { useCredits } from '../../api/queries';
import { EmptyState } from '../../components/EmptyState';
import { ErrorMessage } from '../../components/ErrorMessage';
import { Loading } from '../../components/Loading';
import { PageHeader } from '../../components/PageHeader';
import { isScopeRefusal, loadingWords } from '../account/scope';
import { ShownOnce } from '../account/ShownOnce';
import { CreateKey } from './CreateKey';
import { keyPrefixWords, modeLook, scopeWords } from './key-display';
import { KeyTable } from './KeyTable';
import { Ledger } from './Ledger';
import { fetchKeys, keyKeys } from './queries';
import { UsageTotals } from './UsageTotals';
import '../account/account.css';
import './keys.css';

export default function KeysPage() {
  const [created, setCreated] = useState<Schemas['ApiKeyWithSecret']>();
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
        <p className="hint account-status" role="status" aria-live="polite">
          {said}
        </p>
        {keys.isPending ? <Loading label={loadingWords(keys.fetchStatus, 'Loading your keys…')} /> : null}
        {keys.isError ? (
          <ErrorMessage
            error={keys.error}
            context="Loading your keys"
            onRetry={refused ? undefined : () => void keys.refetch()}
          />
        ) : null}
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
        <CreateKey
          onCreated={(key) => {
            setSaid('');
            setCreated(key);
          }}
        />
        {created ? (
          <ShownOnce
            title={`Your new key “${created.name}”`}
            label="API key"
            secret={created.api_key}
            onDone={() => setCreated(undefined)}
          >
            <p className="hint">
              {modeLook(created.mode).label}, {scopeWords(created.scope).toLowerCase()}. The list shows it as{' '}
              <span className="mono">{keyPrefixWords(created.prefix)}</span>. Send it in the SVC-API-KEY
              header.
            </p>
          </ShownOnce>
        ) : null}
      </section>

      <section aria-labelledby="keys-ledger-heading">
        <h2 id="keys-ledger-heading">Credit ledger</h2>
        <p className="hint">Every grant, charge and refund, newest first.</p>
        <Ledger />
      </section>
    </>
  );
}
