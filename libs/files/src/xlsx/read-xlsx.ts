import type { ReadLimits } from '../limits';
import type { ByteSource } from '../source';
import { XlsxArchive } from './archive';
import { SharedStringsCollector } from './shared-strings';
import { SheetCollector } from './sheet';
import { spoolToTempFile } from './spool';
import { locateParts } from './workbook';
import { parseXml } from './xml';

/**
 * Rows of the first worksheet, streamed: the upload is spooled to a temporary file (zips are read from their
 * end), the shared strings are loaded (capped), then the sheet XML is parsed piece by piece. The temporary
 * file is removed when iteration ends, however it ends.
 */
export async function* readXlsxRows(source: ByteSource, limits: ReadLimits): AsyncGenerator<string[][]> {
  const spooled = await spoolToTempFile(source);
  let archive: XlsxArchive | undefined;
  try {
    archive = await XlsxArchive.open(spooled.path, limits);
    const parts = await locateParts(archive);
    const shared = new SharedStringsCollector(limits.maxSharedStringChars);
    if (parts.sharedStrings) {
      for await (const _ of parseXml(archive.bytes(parts.sharedStrings), shared, parts.sharedStrings)) {
        // The collector keeps the strings; nothing to hand out until the sheet.
      }
    }
    const sheet = new SheetCollector(shared.strings);
    for await (const _ of parseXml(archive.bytes(parts.sheet), sheet, parts.sheet)) {
      if (sheet.rows.length === 0) continue;
      const rows = sheet.rows;
      sheet.rows = [];
      yield rows;
    }
  } finally {
    archive?.close();
    await spooled.remove();
  }
}
