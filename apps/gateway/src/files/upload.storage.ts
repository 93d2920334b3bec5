import { createHash, randomUUID } from 'node:crypto';
import { Readable } from 'node:stream';
import { DomainError } from '@emailverify/contracts';
import type { JetStreamKit } from '@emailverify/messaging';
import type { Request } from 'express';
import type { StorageEngine } from 'multer';
import { isReplayCandidate } from '../common/idempotency/idempotency.service';

/** An upload as the storage leaves it: where it is stored (empty when it was only hashed), and its SHA-256. */
export interface StoredUpload {
  path: string;
  size: number;
  sha256: string;
}

/** multer's error for an over-size file, raised the same way multer raises it. */
function fileTooLarge(field: string): Error {
  const err = new Error('File too large') as Error & { code: string; field: string; name: string };
  err.name = 'MulterError';
  err.code = 'LIMIT_FILE_SIZE';
  err.field = field;
  return err;
}

/** The bucket has no room for an upload: refused before the job is made, so nothing is charged. */
function storeFull(): DomainError {
  return new DomainError(
    'SERVICE_UNAVAILABLE',
    'The file store is full: the upload was not stored and nothing was charged; try again later',
  );
}

/**
 * Streams an uploaded file straight into the object store (bucket `files`), never holding it in memory. A file
 * cut short by the size limit is removed again, so an over-size upload leaves nothing behind.
 *
 * The bucket holds at most `storeMaxBytes` (FILE_STORE_MAX_BYTES). An upload that would not fit is refused with
 * 503: at once when the request's declared length says so, else as soon as its bytes pass the room that was
 * left, and then the put removes the chunks it had stored. The limit is kept here rather than as the stream's
 * max_bytes, which JetStream would reserve on its disk up front whether or not it is used.
 *
 * Every upload is hashed as it streams (an Idempotency-Key's fingerprint holds the file's SHA-256). When the
 * request's key already has an outcome, the file is read and hashed but never stored: its request can only be
 * replayed or refused. Deciding before storing, rather than storing and then removing a duplicate, means a
 * repeat never leaves a second file behind, even when its gateway dies half-way through.
 */
export class ObjectStoreStorage implements StorageEngine {
  constructor(
    private readonly kit: JetStreamKit,
    private readonly storeMaxBytes: number,
  ) {}

  _handleFile(
    req: Request,
    file: Express.Multer.File,
    callback: (error?: unknown, info?: Partial<Express.Multer.File>) => void,
  ): void {
    const name = `uploads/${randomUUID()}`;
    let truncated = false;
    file.stream.once('limit', () => {
      truncated = true;
    });
    const hash = createHash('sha256');
    if (isReplayCandidate(req)) {
      void this.hashOnly(file, hash, () => truncated).then(
        (info) => callback(null, info),
        (err: unknown) => callback(err),
      );
      return;
    }
    void (async () => {
      const room = this.storeMaxBytes - (await this.kit.bucketBytes('files'));
      const declared = Number(req.headers['content-length']) || 0;
      if (declared > room) throw storeFull();
      // Past the room left, the rest is read but not stored (as multer's own size limit does), and the part
      // that was stored is removed below: the request ends normally and nothing of it stays.
      let received = 0;
      const data = (Readable.toWeb(file.stream) as ReadableStream<Uint8Array>).pipeThrough(
        new TransformStream<Uint8Array, Uint8Array>({
          transform(chunk, controller) {
            received += chunk.byteLength;
            hash.update(chunk);
            if (received <= room) controller.enqueue(chunk);
          },
        }),
      );
      const store = await this.kit.objectStore('files');
      const info = await this.kit.putObject(store, name, data);
      if (truncated || received > room) {
        await store.delete(name).catch(() => undefined);
        throw truncated ? fileTooLarge(file.fieldname) : storeFull();
      }
      return { path: name, size: info.size, sha256: hash.digest('hex') } satisfies StoredUpload;
    })().then(
      (stored) => callback(null, stored as Partial<Express.Multer.File>),
      (err: unknown) => callback(err),
    );
  }

  /** Reads the upload through the hash only; an over-size one fails as a stored one would. */
  private async hashOnly(
    file: Express.Multer.File,
    hash: ReturnType<typeof createHash>,
    truncated: () => boolean,
  ): Promise<Partial<Express.Multer.File>> {
    let size = 0;
    for await (const chunk of file.stream as AsyncIterable<Buffer>) {
      size += chunk.byteLength;
      hash.update(chunk);
    }
    if (truncated()) throw fileTooLarge(file.fieldname);
    const read: StoredUpload = { path: '', size, sha256: hash.digest('hex') };
    return read as Partial<Express.Multer.File>;
  }

  _removeFile(_req: Request, file: Express.Multer.File, callback: (error: Error | null) => void): void {
    if (!file.path) {
      callback(null);
      return;
    }
    void this.kit
      .objectStore('files')
      .then((store) => store.delete(file.path))
      .then(
        () => callback(null),
        (err: unknown) => callback(err instanceof Error ? err : new Error(String(err))),
      );
  }
}
