// Downloads of a job's results, without the API key ever in a URL: the CSV is fetched (with the key in a header,
// or through the job's signed link, which needs none) and handed to the browser as an object URL.
import type { VerificationStatus } from '@emailverify/contracts';
import { api, unwrap } from '../../api/client';
import { reportReachable } from '../../api/connectivity';
import { ApiProblem, problemOf } from '../../api/problem';
import { fileNameOf, resultsQuery } from './results';

export interface DownloadRequest {
  jobId: string;
  /** Only rows of these verdicts; empty: every row. */
  statuses: readonly VerificationStatus[];
  /** The rows verified so far of a job still under way. */
  partial: boolean;
  /** Used when the reply names no file. */
  fallbackName: string;
}

function save(blob: Blob, name: string): void {
  const url = URL.createObjectURL(blob);
  const link = document.createElement('a');
  link.href = url;
  link.download = name;
  link.rel = 'noopener';
  document.body.append(link);
  link.click();
  link.remove();
  // The browser has taken the file once the click is handled; the URL can go a moment later.
  window.setTimeout(() => URL.revokeObjectURL(url), 60_000);
}

/**
 * The whole result file through the job's signed link, asked for afresh (links expire), on the page's own
 * origin: the service answers the unfiltered /results with a redirect to that link, which may name another
 * host than the one the console was opened on.
 */
async function fetchSigned(jobId: string): Promise<Response> {
  const status = await unwrap(api().GET('/v1/verify/file/{jobId}', { params: { path: { jobId } } }));
  if (!status.direct_download_url) {
    throw new ApiProblem(400, 'INVALID_REQUEST', 'The results of this job are not ready yet');
  }
  const link = new URL(status.direct_download_url, window.location.origin);
  try {
    const response = await fetch(`${link.pathname}${link.search}`, { headers: { Accept: 'text/csv' } });
    reportReachable(true);
    return response;
  } catch (error) {
    reportReachable(false);
    throw new ApiProblem(0, 'NETWORK', error instanceof Error ? error.message : 'network error');
  }
}

/** Fetches the rows asked for and saves them as a file; the name the file was saved under. */
export async function downloadResults(request: DownloadRequest): Promise<string> {
  const { jobId, statuses, partial } = request;
  let response: Response;
  let blob: Blob;
  if (statuses.length === 0 && !partial) {
    response = await fetchSigned(jobId);
    if (!response.ok) {
      const body: unknown = await response.json().catch(() => undefined);
      throw problemOf(response, body);
    }
    blob = await response.blob();
  } else {
    const reply = await api().GET('/v1/verify/file/{jobId}/results', {
      params: { path: { jobId }, query: resultsQuery(statuses, partial) },
      parseAs: 'blob',
    });
    response = reply.response;
    if (!response.ok || reply.data === undefined) throw problemOf(response, reply.error);
    blob = reply.data as Blob;
  }
  const name = fileNameOf(response.headers.get('Content-Disposition')) ?? request.fallbackName;
  save(blob, name);
  return name;
}
