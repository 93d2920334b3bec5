// Whether the service can be reached: the browser's own idea (navigator.onLine and its events) and the outcome
// of the last request (a fetch that failed to connect marks it unreachable until one succeeds).
import { useSyncExternalStore } from 'react';

const listeners = new Set<() => void>();
let unreachable = false;

function notify(): void {
  for (const listener of listeners) listener();
}

export function reportReachable(reachable: boolean): void {
  if (unreachable === !reachable) return;
  unreachable = !reachable;
  notify();
}

function subscribe(listener: () => void): () => void {
  listeners.add(listener);
  window.addEventListener('online', listener);
  window.addEventListener('offline', listener);
  return () => {
    listeners.delete(listener);
    window.removeEventListener('online', listener);
    window.removeEventListener('offline', listener);
  };
}

export type Connectivity = 'online' | 'offline' | 'unreachable';

function snapshot(): Connectivity {
  if (!navigator.onLine) return 'offline';
  return unreachable ? 'unreachable' : 'online';
}

export function useConnectivity(): Connectivity {
  return useSyncExternalStore(subscribe, snapshot);
}
