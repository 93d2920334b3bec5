import { Inject, Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { DomainError, type FileJobCreateRequest, type FileJobView, Subjects } from '@emailverify/contracts';
import { type ColumnChoice, type FileFormat, formatFromName, openTable } from '@emailverify/files';
import { JetStreamKit, MessageBus } from '@emailverify/messaging';
import { FILE_JOBS_CONFIG, type FileJobsConfig } from '../config';
import { type ChunkPlan, planChunks } from './chunk-plan';
import { toView } from './job-view';
import { type JobRow, JobsRepository } from './jobs.repository';

/**
 * Turns an uploaded file into a pending job: streams and parses it, plans its chunks (planChunks: each unique
 * well-formed address once, in first-seen order, noting which addresses occur again), reserves credits for
 * them (a sandbox job reserves nothing), and commits the job and its chunks in one transaction. Whatever fails leaves no job, no rows, no
 * reservation and no uploaded file behind.
 */
@Injectable()
export class JobCreator {
  constructor(
    private readonly repo: JobsRepository,
    private readonly kit: JetStreamKit,
    @Inject(MessageBus) private readonly bus: Pick<MessageBus, 'request'>,
    @Inject(FILE_JOBS_CONFIG) private readonly config: Readonly<FileJobsConfig>,
  ) {}

  /** `requestId`: the upload's request, which the job keeps for the work it causes later. */
  async create(req: FileJobCreateRequest, requestId: string): Promise<FileJobView> {
    const store = await this.kit.objectStore('files');
    const jobId = randomUUID();
    const reservation = { key: `file:${jobId}`, made: false };
    try {
      const format = formatFromName(req.fileName);
      if (!format) {
        throw new DomainError(
          'INVALID_REQUEST',
          `Unsupported file type "${req.fileName}": upload a .csv, .xlsx or .txt file`,
        );
      }
      const object = await this.kit.getObject('files', req.uploadObject);
      if (!object)
        throw new DomainError('INVALID_REQUEST', 'The uploaded file could not be found; upload it again');
      const { column, batches } = await openTable(object.data, format, {
        emailColumn: req.emailColumn,
        limits: {
          maxLineBytes: this.config.FILE_MAX_LINE_BYTES,
          maxUnzippedBytes: this.config.FILE_MAX_UNZIPPED_BYTES,
        },
      });
      // Parsing happens before the transaction, which then only writes the job and its chunks.
      const plan = await planChunks(batches, column.index, {
        chunkSize: this.config.FILE_CHUNK_SIZE,
        maxEmails: this.config.FILE_MAX_EMAILS,
      });
      if (plan.unique === 0) {
        throw new DomainError(
          'INVALID_REQUEST',
          `The file holds no e-mail address (column "${column.name}" is empty)`,
        );
      }
      return toView(await this.commit(jobId, req, requestId, format, column, plan, reservation));
    } catch (err) {
      if (reservation.made) {
        // The reservation went through but the job did not commit: give the credits back.
        await this.bus
          .request(Subjects.creditsSettle, {
            accountId: req.accountId,
            idempotencyKey: reservation.key,
            used: 0,
          })
          .catch(() => undefined);
      }
      await store.delete(req.uploadObject).catch(() => undefined);
      throw err;
    }
  }

  /** Writes the job and its chunks in one transaction, reserving the credits last, just before it commits. */
  private commit(
    jobId: string,
    req: FileJobCreateRequest,
    requestId: string,
    format: FileFormat,
    column: ColumnChoice,
    plan: ChunkPlan,
    reservation: { key: string; made: boolean },
  ): Promise<JobRow> {
    return this.repo.transaction(async (tx) => {
      await tx.insertJob({
        id: jobId,
        account_id: req.accountId,
        file_name: req.fileName,
        file_size: req.fileSize,
        format,
        status: 'pending',
        email_column: column.name,
        column_index: column.index,
        has_header: column.hasHeader,
        headers: column.headers,
        check_smtp: req.checkSmtp,
        preserve_original: req.preserveOriginal,
        enrich: req.enrich,
        mode: req.sandbox ? 'sandbox' : 'live',
        upload_object: req.uploadObject,
        total_rows: plan.totalRows,
        estimated_count: plan.estimated,
        unique_emails: plan.unique,
        billable_emails: plan.billable,
        total_chunks: plan.chunks.length,
        chunk_size: this.config.FILE_CHUNK_SIZE,
        reservation_key: reservation.key,
        request_id: requestId,
        // Cells that are not addresses are settled at creation (invalid, free): progress starts there.
        processed_emails: plan.unique - plan.billable,
        invalid_emails: plan.unique - plan.billable,
      });
      await tx.insertChunks(jobId, plan.chunks);
      // A sandbox job costs nothing, so it reserves nothing, whatever the balance.
      if (req.sandbox) return tx.view(jobId);
      // Credits last: a short balance refuses the job before anything is kept.
      await this.bus.request(Subjects.creditsReserve, {
        accountId: req.accountId,
        idempotencyKey: reservation.key,
        amount: plan.billable,
      });
      reservation.made = true;
      return tx.view(jobId);
    });
  }
}
