import { randomUUID } from 'node:crypto';
import { Readable } from 'node:stream';
import { DomainError } from '@emailverify/contracts';
import type { JetStreamKit } from '@emailverify/messaging';
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
 * cut short by the size limit is removed again, so an over-size upload leaves nothing behind.
 *
 * The bucket holds at most `storeMaxBytes` (FILE_STORE_MAX_BYTES). An upload that would not fit is refused with
 * 503: at once when the request's declared length says so, else as soon as its bytes pass the room that was
 * left, and then the put removes the chunks it had stored. The limit is kept here rather than as the stream's
 * max_bytes, which JetStream would reserve on its disk up front whether or not it is used.
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
