import { randomUUID } from 'node:crypto';
import { DomainError, type FileJobCreateRequest, type FileJobView, Subjects } from '@emailverify/contracts';
import { formatFromName, openTable } from '@emailverify/files';
import type { JetStreamKit, MessageBus } from '@emailverify/messaging';
import type { FileJobsConfig } from '../config';
import { toView } from './job-view';
import type { JobsRepository, NewChunk } from './jobs.repository';
import { RepeatBits, rowKey } from './row-key';

/**
 * Turns an uploaded file into a pending job: streams and parses it, assigns each unique well-formed address
 * once to a chunk (in first-seen order, noting which addresses occur again), reserves credits for them, and
 * commits the job and its chunks in one transaction. Whatever fails leaves no job, no rows, no reservation
 * and no uploaded file behind.
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
      const seen = new Map<string, number>(); // key -> ordinal among the verifiable addresses, -1 for a non-address
      const chunks: NewChunk[] = [];
      const size = this.config.FILE_CHUNK_SIZE;
      let totalRows = 0;
      let estimated = 0;
      let billable = 0;
      for await (const batch of batches) {
        for (const cells of batch) {
          totalRows += 1;
          const cell = rowKey(cells[column.index]);
          if (cell.kind === 'empty') continue;
          estimated += 1;
          const ordinal = seen.get(cell.key);
          if (ordinal !== undefined) {
            if (ordinal >= 0) chunks[Math.floor(ordinal / size)]!.repeated.set(ordinal % size);
            continue;
          }
          if (seen.size >= this.config.FILE_MAX_EMAILS) {
            throw new DomainError(
              'PAYLOAD_TOO_LARGE',
              `The file holds more than ${this.config.FILE_MAX_EMAILS} addresses`,
            );
          }
          if (cell.kind === 'invalid') {
            seen.set(cell.key, -1);
            continue;
          }
          seen.set(cell.key, billable);
          if (billable % size === 0) chunks.push({ emails: [], repeated: new RepeatBits(size) });
          chunks.at(-1)!.emails.push(cell.key);
          billable += 1;
        }
      }
      if (seen.size === 0) {
        throw new DomainError(
          'INVALID_REQUEST',
          `The file holds no e-mail address (column "${column.name}" is empty)`,
        );
      }
      const unique = seen.size;
      seen.clear();

      const view = await this.repo.transaction(async (tx) => {
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
          upload_object: req.uploadObject,
          total_rows: totalRows,
          estimated_count: estimated,
          unique_emails: unique,
          billable_emails: billable,
          total_chunks: chunks.length,
          chunk_size: size,
          reservation_key: reservationKey,
          // Cells that are not addresses are settled at creation (invalid, free): progress starts there.
          processed_emails: unique - billable,
          invalid_emails: unique - billable,
        });
        await tx.insertChunks(jobId, chunks);
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
