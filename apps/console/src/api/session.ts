// The signed-in API key: kept in sessionStorage only (this tab, until it closes), never in a URL, a cookie or a
// log. Components read it through useSession(); signing out can carry a message for the sign-in page.
import { useSyncExternalStore } from 'react';

const STORAGE_KEY = 'emailverify.console.apiKey';
/** A sandbox key starts so (credits' api-key.ts makes them): canned answers, never charged. */
export const SANDBOX_PREFIX = 'ev_test_';

export interface Session {
  apiKey: string;
  sandbox: boolean;
}

interface State {
  session: Session | undefined;
  /** Why the last session ended, shown on the sign-in page (not when signed out by the person). */
  signedOutReason: string | undefined;
}

const listeners = new Set<() => void>();

function read(): Session | undefined {
  let apiKey: string | null = null;
  try {
    apiKey = window.sessionStorage.getItem(STORAGE_KEY);
  } catch {
    // Storage refused (a locked-down browser): the person signs in again on each load.
  }
  return apiKey ? sessionOf(apiKey) : undefined;
}

let state: State = { session: read(), signedOutReason: undefined };

function update(next: State): void {
  state = next;
  for (const listener of listeners) listener();
}

export function isSandboxKey(apiKey: string): boolean {
  return apiKey.startsWith(SANDBOX_PREFIX);
}

function sessionOf(apiKey: string): Session {
  return { apiKey, sandbox: isSandboxKey(apiKey) };
}

export function signIn(apiKey: string): void {
  try {
    window.sessionStorage.setItem(STORAGE_KEY, apiKey);
  } catch {
    // Kept in memory only for this page.
  }
  update({ session: sessionOf(apiKey), signedOutReason: undefined });
}

/** Forgets the key; `reason` is shown on the sign-in page (an expired or revoked key). */
export function signOut(reason?: string): void {
  try {
    window.sessionStorage.removeItem(STORAGE_KEY);
  } catch {
    // Nothing was stored.
  }
  update({ session: undefined, signedOutReason: reason });
}

export function currentSession(): Session | undefined {
  return state.session;
}

function subscribe(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

export function useSessionState(): State {
  return useSyncExternalStore(subscribe, () => state);
}

/** The session of a page behind sign-in (the shell renders pages only when signed in). */
export function useSession(): Session {
  const { session } = useSessionState();
  if (!session) throw new Error('useSession() outside a signed-in page');
  return session;
}
