import { randomUUID } from 'node:crypto';
import { Readable } from 'node:stream';
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

/**
 * Streams an uploaded file straight into the object store (bucket `files`), never holding it in memory. A file
 * cut short by the size limit is removed again, so an over-size upload leaves nothing behind.
 */
export class ObjectStoreStorage implements StorageEngine {
  constructor(private readonly kit: JetStreamKit) {}

  _handleFile(
    _req: Request,
    file: Express.Multer.File,
    callback: (error?: unknown, info?: Partial<Express.Multer.File>) => void,
  ): void {
    const name = `uploads/${randomUUID()}`;
    let truncated = false;
    file.stream.once('limit', () => {
      truncated = true;
    });
    void (async () => {
      const store = await this.kit.objectStore('files');
      const info = await this.kit.putObject(
        store,
        name,
        Readable.toWeb(file.stream) as ReadableStream<Uint8Array>,
      );
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
