import type { EmailVerifyClient, FileJobStatus, Schemas } from './client';

/** A file of addresses to upload, with the form's fields (POST /v1/verify/file). */
export interface Upload {
  /** The file's name: its extension tells the format (.csv, .xlsx or .txt). */
  fileName: string;
  /** The file's content. */
  content: Blob | string;
  email_column?: string;
  check_smtp?: boolean;
  preserve_original?: boolean;
  enrich?: boolean;
}

/**
 * The request options of an upload, for either style's client: `client.POST('/v1/verify/file', uploadForm(u))`.
 * The typed body names the form's fields; the serializer sends them as multipart/form-data with the file
 * itself (the document types a binary field as a string: the file's name stands in for it there).
 */
export function uploadForm({ fileName, content, ...fields }: Upload) {
  const body: Schemas['FileUploadRequest'] = { ...fields, file: fileName };
  return {
    body,
    bodySerializer(): FormData {
      const form = new FormData();
      for (const [name, value] of Object.entries(fields)) {
        if (value !== undefined) form.append(name, String(value));
      }
      form.append('file', typeof content === 'string' ? new Blob([content]) : content, fileName);
      return form;
    },
  };
}

/** Uploads a file of addresses: the new job, or the error reply. */
export function uploadFile(client: EmailVerifyClient, upload: Upload) {
  return client.POST('/v1/verify/file', uploadForm(upload));
}

/** A reply that was an error, thrown by the helpers that return only a result. */
export class EmailVerifyError extends Error {
  constructor(
    readonly status: number,
    readonly body: Schemas['Error'] | undefined,
  ) {
    super(body ? `${status} ${body.error.code}: ${body.error.message}` : `HTTP ${status}`);
    this.name = 'EmailVerifyError';
  }
}

/** The states a job does not leave. */
const ENDED: ReadonlyArray<Schemas['JobState']> = [
  'completed',
  'completed_with_warning',
  'failed',
  'cancelled',
];

/**
 * Waits for a file job to end and returns its final status. Each request asks the service to hold the reply
 * until the job ends or `waitSeconds` (at most 300) pass, so a job that takes an hour costs a request every few
 * minutes rather than a poll every second. `signal` abandons the wait.
 */
export async function waitForJob(
  client: EmailVerifyClient,
  jobId: string,
  { waitSeconds = 60, signal }: { waitSeconds?: number; signal?: AbortSignal } = {},
): Promise<FileJobStatus> {
  for (;;) {
    const { data, error, response } = await client.GET('/v1/verify/file/{jobId}', {
      params: { path: { jobId }, query: { timeout: waitSeconds } },
      ...(signal ? { signal } : {}),
    });
    if (!data) throw new EmailVerifyError(response.status, error);
    if (ENDED.includes(data.data.status)) return data.data;
  }
}
