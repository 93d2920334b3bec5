import { randomUUID } from 'node:crypto';
import { Readable } from 'node:stream';
import { DomainError } from '@emailverify/contracts';
import { isStoreFull, type JetStreamKit } from '@emailverify/messaging';
import type { Request } from 'express';
import type { StorageEngine } from 'multer';

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
 * cut short by the size limit is removed again, so an over-size upload leaves nothing behind. An upload that
 * would not fit in the bucket (its limit, which file-jobs sets from FILE_STORE_MAX_BYTES) is refused with 503:
 * at once when the request's declared length says so, else when JetStream refuses a chunk, and then the put
 * removes what it had stored.
 */
export class ObjectStoreStorage implements StorageEngine {
  constructor(private readonly kit: JetStreamKit) {}

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
    void (async () => {
      const { bytes, maxBytes } = await this.kit.bucketUsage('files');
      const declared = Number(req.headers['content-length']) || 0;
      if (maxBytes >= 0 && bytes + declared > maxBytes) throw storeFull();
      const store = await this.kit.objectStore('files');
      const info = await this.kit
        .putObject(store, name, Readable.toWeb(file.stream) as ReadableStream<Uint8Array>)
        .catch((err: unknown) => {
          throw isStoreFull(err) ? storeFull() : err;
        });
      if (truncated) {
        await store.delete(name).catch(() => undefined);
        throw fileTooLarge(file.fieldname);
      }
      return info.size;
    })().then(
      (size) => callback(null, { path: name, size }),
      (err: unknown) => callback(err),
    );
  }

  _removeFile(_req: Request, file: Express.Multer.File, callback: (error: Error | null) => void): void {
    void this.kit
      .objectStore('files')
      .then((store) => store.delete(file.path))
      .then(
        () => callback(null),
        (err: unknown) => callback(err instanceof Error ? err : new Error(String(err))),
      );
  }
}
