import { mkdtemp, open, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ByteSource } from '../source';
import { bytePieces } from '../source';
import { notXlsx } from './rejections';

export interface SpooledFile {
  path: string;
  remove(): Promise<void>;
}

const ZIP_SIGNATURES = [
  [0x50, 0x4b, 0x03, 0x04], // a local file header: any zip with entries
  [0x50, 0x4b, 0x05, 0x06], // end of central directory first: an empty zip, refused later for holding no workbook
];
const OLE_SIGNATURE = [0xd0, 0xcf, 0x11, 0xe0];

/**
 * A zip is read from its end (the central directory), so the upload is copied to a private temporary file
 * first: memory stays flat whatever the file size. Not a zip at all is refused on the first bytes, before
 * anything is written. The caller removes the file.
 */
export async function spoolToTempFile(source: ByteSource): Promise<SpooledFile> {
  const dir = await mkdtemp(join(tmpdir(), 'emailverify-upload-'));
  const remove = (): Promise<void> => rm(dir, { recursive: true, force: true });
  const path = join(dir, 'upload.xlsx');
  try {
    const handle = await open(path, 'wx', 0o600);
    try {
      let head = Buffer.alloc(0);
      let checked = false;
      for await (const piece of bytePieces(source)) {
        if (!checked) {
          head = Buffer.concat([head, piece]).subarray(0, 4);
          if (head.length >= 4) {
            checkSignature(head);
            checked = true;
          }
        }
        await handle.write(piece);
      }
      if (!checked) checkSignature(head);
    } finally {
      await handle.close();
    }
    return { path, remove };
  } catch (error) {
    await remove();
    throw error;
  }
}

function checkSignature(head: Buffer): void {
  const matches = (signature: number[]): boolean => signature.every((byte, i) => head[i] === byte);
  if (ZIP_SIGNATURES.some(matches)) return;
  if (matches(OLE_SIGNATURE)) {
    throw notXlsx(
      'it looks like an old Excel (.xls) or password-protected workbook; save it as .xlsx or CSV',
    );
  }
  throw notXlsx();
}
