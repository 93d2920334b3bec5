import type { ReactNode } from 'react';
import { retryable } from '../format/error-words';
import { loadingWords } from '../format/waiting';
import { ErrorMessage } from './ErrorMessage';
import { Loading } from './Loading';

/** The parts of a TanStack Query result this reads. */
interface QueryLike {
  isPending: boolean;
  isError: boolean;
  fetchStatus: 'fetching' | 'paused' | 'idle';
  error: unknown;
  data: unknown;
  refetch: () => unknown;
}

interface Props {
  query: QueryLike;
  /** The loading label: "Loading your lists…". */
  loading: string;
  /** Instead of the loading label while the browser is offline. */
  offline?: string;
  /** What was being done, for the error's heading: "Loading your lists". */
  context: string;
  /**
   * Shown instead of the error when a refresh failed but the last data is still on the page ("could not be
   * refreshed just now"); without it, the error itself is shown.
   */
  stale?: ReactNode;
}

/**
 * A query's states besides its data: loading (or waiting for the network), and a failure in plain words with
 * "Try again" when another attempt may work (not after a refusal, which asking again does not mend).
 */
export function QueryState({ query, loading, offline, context, stale }: Props) {
  if (query.isPending) return <Loading label={loadingWords(query.fetchStatus, loading, offline)} />;
  if (!query.isError) return null;
  if (stale !== undefined && query.data !== undefined) {
    return (
      <p className="notice notice--warn" role="status">
        {stale}
      </p>
    );
  }
  return (
    <ErrorMessage
      error={query.error}
      context={context}
      onRetry={retryable(query.error) ? () => void query.refetch() : undefined}
    />
  );
}
