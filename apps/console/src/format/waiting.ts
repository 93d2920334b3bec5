/** What a query's first load says while the browser is offline (TanStack Query pauses it). */
export const OFFLINE_WORDS = 'Waiting for the network: this loads once you are back online…';

/** A loading label, or what it waits for when the query is paused because the browser is offline. */
export function loadingWords(
  fetchStatus: 'fetching' | 'paused' | 'idle',
  words: string,
  offline: string = OFFLINE_WORDS,
): string {
  return fetchStatus === 'paused' ? offline : words;
}
