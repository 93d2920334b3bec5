import { Readable } from 'node:stream';
import { create as contentDisposition } from 'content-disposition';
import { pipeline } from 'node:stream/promises';
import { type BeforeApplicationShutdown, Inject, Injectable } from '@nestjs/common';
import {
  DomainError,
  FILE_JOB_LIST_DEFAULT_LIMIT,
  FILE_NAME_MAX_LENGTH,
  type FileJobDeleteReply,
  type FileJobListReply,
  type FileJobResultsReply,
  type FileJobView,
  isTerminalJobState,
  type JobState,
  jobStatusSubject,
  type JobStatusBroadcast,
  type RpcReply,
  type RpcRequest,
  Subjects,
  isUuid,
} from '@emailverify/contracts';
import { CsvWriter, readCsv } from '@emailverify/files';
import { JetStreamKit, MessageBus } from '@emailverify/messaging';
import { downloadLink, resultsUrl, verifyDownload } from '@emailverify/service-kit';
import type { Response } from 'express';
import { checkJsonShape } from '../common/http/json-body.guard';
import { askForAccount } from '../common/account-request';
import type { AuthContext } from '../common/http/request-context';
import { validateDto } from '../common/http/validation';
import { GATEWAY_CONFIG, type GatewayConfig } from '../config';
import { type ListQueryDto, RESULT_FILTERS, type ResultFilter, UploadFieldsDto } from './dto/files.dto';

export interface JobStatusView extends FileJobView {
  downloadUrl?: string;
  directDownloadUrl?: string;
  directDownloadExpiresAt?: string;
}

/** File jobs at the edge: uploads into the object store, status (with long polling), downloads. */
@Injectable()
export class FilesService implements BeforeApplicationShutdown {
  /** Aborted when the gateway begins to stop: waiting status requests answer at once with what they have. */
  private readonly stopping = new AbortController();

  constructor(
    private readonly bus: MessageBus,
    private readonly kit: JetStreamKit,
    @Inject(GATEWAY_CONFIG) private readonly config: Readonly<GatewayConfig>,
  ) {}

  /** First thing at shutdown, before the HTTP server waits for the requests in flight to finish. */
  beforeApplicationShutdown(): void {
    this.stopping.abort();
  }

  /** Creates the job from a stored upload; on any failure the upload is removed, so nothing is left half-made. */
  async create(
    auth: AuthContext,
    file: Express.Multer.File | undefined,
    fields: unknown,
  ): Promise<FileJobView> {
    try {
      if (!file)
        throw new DomainError(
          'INVALID_REQUEST',
          'file is required: send the addresses as a multipart field named "file"',
          { field: 'file' },
        );
      checkFileName(file.originalname);
      // Form fields follow the JSON rules: bracket names (a[b][c]) nest, and __proto__ is a name like any other.
      if (fields !== null && typeof fields === 'object') checkJsonShape(fields);
      const dto = validateDto(UploadFieldsDto, fields);
      return await askForAccount(
        this.bus,
        auth,
        Subjects.filesJobCreate,
        {
          uploadObject: file.path,
          fileName: file.originalname || 'upload',
          fileSize: file.size,
          ...(dto.email_column !== undefined ? { emailColumn: dto.email_column } : {}),
          checkSmtp: dto.check_smtp ?? false,
          preserveOriginal: dto.preserve_original ?? true,
          enrich: dto.enrich ?? false,
          // A sandbox key's job reserves nothing and is answered from the sandbox table.
          ...(auth.mode === 'sandbox' ? { sandbox: true } : {}),
        },
        { timeoutMs: this.config.FILE_CREATE_TIMEOUT_MS },
      );
    } catch (err) {
      if (file?.path) await this.removeObject(file.path);
      throw err;
    }
  }

  /**
   * The job's status; with `timeoutSeconds` > 0 it waits until the job is terminal or the time is up. The wait
   * listens to the job's status broadcast, so it wakes on whichever gateway holds the request.
   */
  async status(
    auth: AuthContext,
    jobId: string,
    timeoutSeconds: number,
    closed: Promise<void>,
  ): Promise<JobStatusView> {
    checkJobId(jobId);
    const get = () => this.askJob(Subjects.filesJobGet, auth, jobId);
    if (timeoutSeconds <= 0 || this.stopping.signal.aborted) return this.withLinks(await get());
    let wake!: () => void;
    const terminal = new Promise<void>((resolve) => (wake = resolve));
    this.stopping.signal.addEventListener('abort', wake, { once: true });
    // Subscribed before the first read, so a change between the read and the wait is not missed.
    const sub = this.bus.onBroadcast<JobStatusBroadcast>(jobStatusSubject(jobId), (event) => {
      if (isTerminalJobState(event.status)) wake();
    });
    let timer: NodeJS.Timeout | undefined;
    try {
      const first = await get();
      if (isTerminalJobState(first.status)) return this.withLinks(first);
      await Promise.race([
        terminal,
        closed,
        new Promise<void>((resolve) => (timer = setTimeout(resolve, timeoutSeconds * 1000))),
      ]);
      return this.withLinks(await get());
    } finally {
      clearTimeout(timer);
      sub.unsubscribe();
      this.stopping.signal.removeEventListener('abort', wake);
    }
  }

  async action(
    auth: AuthContext,
    jobId: string,
    action: 'pause' | 'resume' | 'cancel',
  ): Promise<JobStatusView> {
    checkJobId(jobId);
    const subject = {
      pause: Subjects.filesJobPause,
      resume: Subjects.filesJobResume,
      cancel: Subjects.filesJobCancel,
    }[action];
    return this.withLinks(await this.askJob(subject, auth, jobId));
  }

  /** Erases the job with its files and rows (a running job is cancelled first, by file-jobs). */
  async remove(auth: AuthContext, jobId: string): Promise<FileJobDeleteReply> {
    checkJobId(jobId);
    return this.askJob(Subjects.filesJobDelete, auth, jobId);
  }

  /** One page of the account's jobs, newest first (the query checked by ListQueryDto). */
  async list(auth: AuthContext, query: ListQueryDto): Promise<FileJobListReply> {
    const statuses = query.status === undefined ? undefined : [...new Set(query.status.split(','))];
    return askForAccount(this.bus, auth, Subjects.filesJobList, {
      mode: auth.mode,
      limit: query.limit ?? FILE_JOB_LIST_DEFAULT_LIMIT,
      ...(statuses ? { statuses: statuses as JobState[] } : {}),
      ...(query.cursor !== undefined ? { cursor: query.cursor } : {}),
    });
  }

  /** Where the job's results are; with `partial`, a copy of the rows verified so far of a job under way. */
  async locateResults(auth: AuthContext, jobId: string, partial = false): Promise<FileJobResultsReply> {
    checkJobId(jobId);
    return askForAccount(this.bus, auth, Subjects.filesJobResults, {
      jobId,
      mode: auth.mode,
      ...(partial ? { partial } : {}),
    });
  }

  /**
   * One request to file-jobs about one of the caller's jobs, in the caller's account, key mode (a sandbox key's
   * jobs and a live key's stay apart) and request.
   */
  private askJob<S extends JobSubject>(subject: S, auth: AuthContext, jobId: string): Promise<RpcReply<S>> {
    // Each job subject asks with a FileJobRef; TypeScript does not follow Omit through the generic.
    const ref = { jobId, mode: auth.mode } as Omit<RpcRequest<S>, 'accountId'>;
    return askForAccount(this.bus, auth, subject, ref);
  }

  directLink(jobId: string): { url: string; expiresAt: string } {
    return downloadLink(this.config, jobId);
  }

  /** Checks a signed link and finds its file; a changed or expired link is refused. */
  async locateSigned(
    jobId: string,
    expires: string | undefined,
    signature: string | undefined,
    requestId: string,
  ): Promise<FileJobResultsReply> {
    checkJobId(jobId);
    const verdict = verifyDownload(this.config, jobId, expires, signature);
    if (verdict === 'expired')
      throw new DomainError(
        'DOWNLOAD_LINK_INVALID',
        'This download link has expired; ask for the job status to get a new one',
      );
    if (verdict === 'invalid')
      throw new DomainError('DOWNLOAD_LINK_INVALID', 'This download link is not valid');
    return this.bus.request(Subjects.filesJobLocate, { jobId }, { requestId });
  }

  /**
   * Streams the whole result file, or only the rows whose status is one of `filters`. A copy made for this
   * request (partial results) is removed afterwards, whether or not the client read it all.
   */
  async streamResults(
    results: FileJobResultsReply,
    filters: readonly ResultFilter[] | undefined,
    res: Response,
  ): Promise<void> {
    try {
      await this.streamObject(results, filters, res);
    } finally {
      if (results.temporary) await this.removeObject(results.objectName);
    }
  }

  private async streamObject(
    results: FileJobResultsReply,
    filters: readonly ResultFilter[] | undefined,
    res: Response,
  ): Promise<void> {
    const object = await this.kit.getObject('files', results.objectName);
    if (!object) throw new DomainError('JOB_NOT_FOUND', 'The result file is no longer available');
    res.status(200);
    res.setHeader('Content-Type', 'text/csv; charset=utf-8');
    res.setHeader('Content-Disposition', attachment(results.fileName, filters));
    const source = Readable.fromWeb(object.data as import('node:stream/web').ReadableStream<Uint8Array>);
    if (!filters) {
      await pipeline(source, res);
      return;
    }
    const wanted = new Set<string>(filters);
    const writer = new CsvWriter();
    const output = writer.pipeTo(res);
    // Observed at once: a client that goes away rejects it while rows are still being written.
    output.catch(() => undefined);
    try {
      let header = true;
      for await (const row of readCsv(source)) {
        if (header || wanted.has(row[results.statusColumn] ?? '')) await writer.write([row]);
        header = false;
      }
      await writer.end();
    } catch (err) {
      writer.abort(err);
      throw err;
    }
    await output;
  }

  parseFilters(query: Record<string, unknown>): ResultFilter[] | undefined {
    const given = RESULT_FILTERS.filter((f) => query[f] !== undefined);
    if (given.length === 0) return undefined;
    return RESULT_FILTERS.filter((f) => query[f] === true);
  }

  private withLinks(view: FileJobView): JobStatusView {
    if (view.status !== 'completed' && view.status !== 'completed_with_warning') return view;
    const link = this.directLink(view.jobId);
    return {
      ...view,
      downloadUrl: resultsUrl(this.config, view.jobId),
      directDownloadUrl: link.url,
      directDownloadExpiresAt: link.expiresAt,
    };
  }

  private async removeObject(name: string): Promise<void> {
    const store = await this.kit.objectStore('files');
    await store.delete(name).catch(() => undefined);
  }
}

/** Job ids are UUIDs; anything else names no job (and never reaches file-jobs' payload checks). */
/** The file-jobs requests that name one job of the caller's account. */
type JobSubject =
  | typeof Subjects.filesJobGet
  | typeof Subjects.filesJobPause
  | typeof Subjects.filesJobResume
  | typeof Subjects.filesJobCancel
  | typeof Subjects.filesJobDelete;

/** An upload's file name is kept with its job and names its result file: FILE_NAME_MAX_LENGTH at most. */
function checkFileName(name: string): void {
  if (name.length > FILE_NAME_MAX_LENGTH)
    throw new DomainError(
      'INVALID_REQUEST',
      `file name is too long: at most ${FILE_NAME_MAX_LENGTH} characters (got ${name.length}); rename the file and upload it again`,
      { field: 'file', max: FILE_NAME_MAX_LENGTH },
    );
}

function checkJobId(jobId: string): void {
  if (!isUuid(jobId)) throw new DomainError('JOB_NOT_FOUND', 'Job not found');
}

/**
 * The download's Content-Disposition: the uploaded name (control and format characters replaced), with the
 * filters in it for a filtered download; an ASCII `filename` for old clients and the UTF-8 `filename*`.
 */
export function attachment(fileName: string, filters?: readonly string[]): string {
  const clean = fileName.replace(/[\p{Cc}\p{Cf}]/gu, '_') || 'results.csv';
  const name = filters ? clean.replace(/\.csv$/, `-${filters.join('-') || 'none'}.csv`) : clean;
  return contentDisposition(name, { fallback: name.replace(/[^\x20-\x7e]/g, '_') });
}
