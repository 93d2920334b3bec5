// Sending a file with a progress bar. openapi-fetch uses fetch, which reports no upload progress in browsers,
// so the upload goes through XMLHttpRequest to the same origin, with the same headers and the same error
// handling as the console's client (a 401 signs out, a failed connection marks the service unreachable).
import { uploadForm, type Schemas } from '@emailverify/client';
import { SIGNED_OUT_ON_401 } from '../../api/client';
import { reportReachable } from '../../api/connectivity';
import { ApiProblem, problemOf } from '../../api/problem';
import { currentSession, signOut } from '../../api/session';

export type FileJob = Schemas['FileJob'];

export interface UploadOptions {
  file: File;
  /** The column to verify; left out, the service detects it. */
  emailColumn?: string;
  /** Called as bytes leave the browser. */
  onProgress?: (loaded: number, total: number) => void;
  signal?: AbortSignal;
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/** Headers of an XMLHttpRequest reply, as a Fetch Headers object (for problemOf's Retry-After). */
function headersOf(xhr: XMLHttpRequest): Headers {
  const headers = new Headers();
  for (const line of xhr
    .getAllResponseHeaders()
    .trim()
    .split(/[\r\n]+/)) {
    const colon = line.indexOf(':');
    if (colon > 0) headers.append(line.slice(0, colon).trim(), line.slice(colon + 1).trim());
  }
  return headers;
}

/** Uploads a file of addresses: the new job, or an ApiProblem in the catalogue's terms. */
export function uploadFile({ file, emailColumn, onProgress, signal }: UploadOptions): Promise<FileJob> {
  const session = currentSession();
  if (!session) return Promise.reject(new ApiProblem(401, 'INVALID_API_KEY', 'Not signed in'));
  const form = uploadForm({
    fileName: file.name,
    content: file,
    ...(emailColumn ? { email_column: emailColumn } : {}),
  }).bodySerializer();

  return new Promise<FileJob>((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open('POST', `${window.location.origin}/v1/verify/file`);
    xhr.setRequestHeader('SVC-API-KEY', session.apiKey);
    xhr.setRequestHeader('SVC-Response-Style', 'current');
    xhr.setRequestHeader('Accept', 'application/json');
    xhr.upload.addEventListener('progress', (event) => {
      if (event.lengthComputable) onProgress?.(event.loaded, event.total);
    });
    xhr.addEventListener('load', () => {
      reportReachable(true);
      const body = parseJson(xhr.responseText);
      if (xhr.status >= 200 && xhr.status < 300) {
        const data = (body as { data?: FileJob } | undefined)?.data;
        if (data && typeof data.task_id === 'string') resolve(data);
        else reject(new ApiProblem(xhr.status, 'UNEXPECTED_REPLY', `HTTP ${xhr.status}`));
        return;
      }
      if (xhr.status === 401 && currentSession()?.apiKey === session.apiKey) signOut(SIGNED_OUT_ON_401);
      reject(problemOf(new Response(null, { status: xhr.status, headers: headersOf(xhr) }), body));
    });
    xhr.addEventListener('error', () => {
      reportReachable(false);
      reject(new ApiProblem(0, 'NETWORK', 'The upload could not reach the service'));
    });
    xhr.addEventListener('abort', () => reject(new DOMException('The upload was stopped', 'AbortError')));
    if (signal) {
      if (signal.aborted) {
        reject(new DOMException('The upload was stopped', 'AbortError'));
        return;
      }
      signal.addEventListener('abort', () => xhr.abort(), { once: true });
    }
    xhr.send(form);
  });
}
