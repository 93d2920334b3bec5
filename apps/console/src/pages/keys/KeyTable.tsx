import { useMutation } from '@tanstack/react-query';
import { type RefObject, useState } from 'react';
import { api, unwrap } from '../../api/client';
import { TableWrap } from '../../components/TableWrap';
import { queryClient } from '../../api/queries';
import { signOut } from '../../api/session';
import { formatDateTime } from '../../format/numbers';
import { ConfirmDialog } from '../account/ConfirmDialog';
import { LookBadge } from '../account/Tone';
import {
  type ApiKey,
  expiryWords,
  isCurrentKey,
  isUsable,
  keyPrefixWords,
  keyStateLook,
  modeLook,
  scopeWords,
} from './key-display';
import { keyKeys } from './queries';

interface Props {
  keys: ApiKey[];
  /** The id of the key this page is signed in with (from GET /v1/credits), once known. */
  currentKeyId: string | undefined;
  /** Called after a revocation, with the words to announce. */
  onRevoked: (words: string) => void;
  /** Where focus goes once a key is revoked (its Revoke button goes away). */
  listHeading: RefObject<HTMLElement | null>;
}

/** The account's keys, oldest first, each revocable behind a confirmation. */
export function KeyTable({ keys, currentKeyId, onRevoked, listHeading }: Props) {
  const [chosen, setChosen] = useState<ApiKey>();
  const revoke = useMutation({
    mutationFn: (keyId: string) => unwrap(api().DELETE('/v1/keys/{keyId}', { params: { path: { keyId } } })),
    onSuccess: (key) => {
      setChosen(undefined);
      onRevoked(
        `The key “${key.name}” (${keyPrefixWords(key.prefix)}) was revoked: it no longer works anywhere.`,
      );
      void queryClient.invalidateQueries({ queryKey: keyKeys.list });
    },
  });
  const close = () => {
    revoke.reset();
    setChosen(undefined);
  };
  const chosenIsCurrent = chosen !== undefined && isCurrentKey(chosen, currentKeyId);

  return (
    <>
      <TableWrap label="API keys table">
        <table>
          <caption className="visually-hidden">Your API keys, oldest first</caption>
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Key</th>
              <th scope="col">Mode</th>
              <th scope="col">Scope</th>
              <th scope="col">Created</th>
              <th scope="col">Expires</th>
              <th scope="col">State</th>
              <th scope="col">
                <span className="visually-hidden">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {keys.map((key) => {
              const current = isCurrentKey(key, currentKeyId);
              return (
                <tr key={key.id} className={current ? 'keys-row--current' : undefined}>
                  <th scope="row">
                    {key.name}
                    {current ? <span className="keys-current">Signed in with this key</span> : null}
                  </th>
                  <td className="mono keys-prefix">{keyPrefixWords(key.prefix)}</td>
                  <td>
                    <LookBadge look={modeLook(key.mode)} />
                  </td>
                  <td>{scopeWords(key.scope)}</td>
                  <td>{formatDateTime(key.created_at)}</td>
                  <td>{expiryWords(key.expires_at)}</td>
                  <td>
                    <LookBadge look={keyStateLook(key)} />
                    {key.revoked_at ? (
                      <span className="keys-when">{formatDateTime(key.revoked_at)}</span>
                    ) : null}
                  </td>
                  <td>
                    {isUsable(key) ? (
                      <button type="button" className="button button--quiet" onClick={() => setChosen(key)}>
                        Revoke
                      </button>
                    ) : null}
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      </TableWrap>

      <ConfirmDialog
        open={chosen !== undefined && !chosenIsCurrent}
        title={chosen ? `Revoke the key “${chosen.name}”?` : 'Revoke the key?'}
        confirmLabel="Revoke key"
        busyLabel="Revoking…"
        danger
        busy={revoke.isPending}
        error={revoke.error}
        errorContext="Revoking the key"
        returnFocusTo={revoke.isSuccess ? listHeading : undefined}
        onConfirm={() => chosen && revoke.mutate(chosen.id)}
        onCancel={close}
      >
        {chosen ? <p className="mono">{keyPrefixWords(chosen.prefix)}</p> : null}
        <p>
          Everything that uses it (a server, a script, a page signed in with it) is refused from the moment
          you confirm. This cannot be undone.
        </p>
      </ConfirmDialog>
      <ConfirmDialog
        open={chosenIsCurrent}
        title="This is the key you are signed in with"
        confirmLabel="Sign out"
        onConfirm={() => {
          queryClient.clear();
          signOut();
        }}
        onCancel={close}
        cancelLabel="Keep it"
      >
        <p>A key cannot revoke itself. To revoke this one:</p>
        <ol>
          <li>create another key with full access here, if you have none, and copy it;</li>
          <li>sign out, and sign in with that other key;</li>
          <li>come back to Keys &amp; usage and revoke this one.</li>
        </ol>
        <p>Every page still signed in with this key is then signed out at its next request.</p>
      </ConfirmDialog>
    </>
  );
}
