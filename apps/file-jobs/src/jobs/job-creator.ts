import { randomUUID } from 'node:crypto';
import {
  type ChunkItemResult,
  DomainError,
  type FileJobCreateRequest,
  type FileJobView,
  Subjects,
} from '@emailverify/contracts';
import { formatFromName, openTable } from '@emailverify/files';
import type { JetStreamKit, MessageBus } from '@emailverify/messaging';
import { parseAddress } from '@emailverify/verification';
import type { FileJobsConfig } from '../config';
import { syntaxFailure, toView } from './job-view';
import type { EmailRow, JobsRepository } from './jobs.repository';

const INSERT_BATCH = 5_000;

/**
 * Turns an uploaded file into a pending job: streams and parses it, stores each unique address once (in
 * first-seen order, assigned to chunks), reserves credits for the well-formed ones, and commits all of it
 * in one transaction. Whatever fails leaves no job, no rows, no reservation and no uploaded file behind.
 */
export class JobCreator {
  constructor(
    private readonly repo: JobsRepository,
    private readonly kit: JetStreamKit,
    private readonly bus: Pick<MessageBus, 'request'>,
    private readonly config: Readonly<FileJobsConfig>,
  ) {}

  async create(req: FileJobCreateRequest): Promise<FileJobView> {
    const store = await this.kit.objectStore('files');
    const jobId = randomUUID();
    const reservationKey = `file:${jobId}`;
    let reserved = false;
    try {
      const format = formatFromName(req.fileName);
      if (!format) {
        throw new DomainError(
          'INVALID_REQUEST',
          `Unsupported file type "${req.fileName}": upload a .csv, .xlsx or .txt file`,
        );
      }
      const object = await store.get(req.uploadObject);
      if (!object)
        throw new DomainError('INVALID_REQUEST', 'The uploaded file could not be found; upload it again');
      const { column, rows } = await openTable(object.data, format, {
        emailColumn: req.emailColumn,
        limits: {
          maxLineBytes: this.config.FILE_MAX_LINE_BYTES,
          maxUnzippedBytes: this.config.FILE_MAX_UNZIPPED_BYTES,
        },
      });

      const view = await this.repo.transaction(async (tx) => {
        await tx.insertJob({
          id: jobId,
          account_id: req.accountId,
          file_name: req.fileName,
          file_size: req.fileSize,
          format,
          status: 'preparing',
          email_column: column.name,
          column_index: column.index,
          has_header: column.hasHeader,
          headers: column.headers,
          check_smtp: req.checkSmtp,
          preserve_original: req.preserveOriginal,
          upload_object: req.uploadObject,
          total_rows: 0,
          estimated_count: 0,
          unique_emails: 0,
          billable_emails: 0,
          total_chunks: 0,
          reservation_key: reservationKey,
        });
        const seen = new Set<string>();
        const batch: EmailRow[] = [];
        const precomputed: ChunkItemResult[] = [];
        let totalRows = 0;
        let estimated = 0;
        let billable = 0;
        for await (const { cells } of rows) {
          totalRows += 1;
          const cell = (cells[column.index] ?? '').trim();
          if (!cell) continue;
          estimated += 1;
          const parsed = parseAddress(cell);
          const key = parsed.ok ? parsed.email : cell;
          if (seen.has(key)) continue;
          seen.add(key);
          if (seen.size > this.config.FILE_MAX_EMAILS) {
            throw new DomainError(
              'PAYLOAD_TOO_LARGE',
              `The file holds more than ${this.config.FILE_MAX_EMAILS} addresses`,
            );
          }
          if (parsed.ok) {
            batch.push({
              idx: seen.size - 1,
              email: key,
              chunk: Math.floor(billable / this.config.FILE_CHUNK_SIZE),
              result: null,
            });
            billable += 1;
          } else {
            const result = syntaxFailure(key);
            batch.push({ idx: seen.size - 1, email: key, chunk: null, result });
            precomputed.push(result);
          }
          if (batch.length >= INSERT_BATCH) await tx.insertEmails(jobId, batch.splice(0));
        }
        await tx.insertEmails(jobId, batch.splice(0));
        if (seen.size === 0) {
          throw new DomainError(
            'INVALID_REQUEST',
            `The file holds no e-mail address (column "${column.name}" is empty)`,
          );
        }
        const sizes: number[] = [];
        for (let left = billable; left > 0; left -= this.config.FILE_CHUNK_SIZE)
          sizes.push(Math.min(left, this.config.FILE_CHUNK_SIZE));
        await tx.insertChunks(jobId, sizes);
        await tx.finishPreparing(jobId, {
          totalRows,
          estimated,
          unique: seen.size,
          billable,
          chunks: sizes.length,
        });
        await tx.countPrecomputed(jobId, precomputed);
        // Credits last, just before commit: a short balance refuses the job before anything is kept.
        await this.bus.request(Subjects.creditsReserve, {
          accountId: req.accountId,
          idempotencyKey: reservationKey,
          amount: billable,
        });
        reserved = true;
        return tx.view(jobId);
      });
      return toView(view);
    } catch (err) {
      if (reserved) {
        // The reservation went through but the job did not commit: give the credits back.
        await this.bus
          .request(Subjects.creditsSettle, {
            accountId: req.accountId,
            idempotencyKey: reservationKey,
            used: 0,
          })
          .catch(() => undefined);
      }
      await store.delete(req.uploadObject).catch(() => undefined);
      throw err;
    }
  }
}
