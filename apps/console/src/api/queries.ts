// Server state shared by several pages: one query key and one fetcher each, so pages agree on what is cached.
import { QueryClient, useQuery } from '@tanstack/react-query';
import { api, unwrap } from './client';
import { ApiProblem } from './problem';

export const queryClient = new QueryClient({
  defaultOptions: {
    queries: {
      staleTime: 15_000,
      // A refusal is an answer: only a request that could not connect, or a server fault, is tried again.
      retry: (failures, error) =>
        failures < 2 && (!(error instanceof ApiProblem) || error.status === 0 || error.status >= 500),
      refetchOnWindowFocus: false,
    },
  },
});

export const queryKeys = {
  credits: ['credits'] as const,
  usage: ['credits', 'usage'] as const,
  jobs: (limit: number) => ['files', 'list', limit] as const,
};

export function useCredits() {
  return useQuery({ queryKey: queryKeys.credits, queryFn: () => unwrap(api().GET('/v1/credits')) });
}
