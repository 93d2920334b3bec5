import { TextDecoder } from 'node:util';
import { FileRejected } from '../errors';
import type { ByteSource } from '../source';
import { bytePieces } from '../source';
import { LineGuard } from './line-guard';

/** Binary content is judged on this much of the start of the file. */
const SNIFF_BYTES = 64 * 1024;

export interface DecodeOptions {
  maxLineBytes: number;
  /** "CSV" or "text", for messages. */
  label: string;
}

/**
 * Decodes a text upload to strings, refusing binary data (NUL bytes, or bytes that are not UTF-8), and lines
 * longer than the limit. UTF-8 is expected (its BOM is dropped); UTF-16 with a BOM, which Excel writes for
 * "Unicode text", is accepted too.
 */
export async function* decodeText(source: ByteSource, options: DecodeOptions): AsyncGenerator<string> {
  const guard = new LineGuard(options.maxLineBytes);
  let decoder: TextDecoder | undefined;
  let offset = 0;
  for await (const piece of bytePieces(source)) {
    if (!decoder) decoder = chooseDecoder(piece, options.label);
    if (offset < SNIFF_BYTES && decoder.encoding === 'utf-8') {
      const sniffed = piece.subarray(0, SNIFF_BYTES - offset);
      if (sniffed.includes(0)) throw notText(options.label);
    }
    const text = decode(decoder, piece, offset, guard.line, options.label);
    guard.scan(piece);
    yield text;
    offset += piece.byteLength;
  }
  if (decoder) {
    const rest = decode(decoder, undefined, offset, guard.line, options.label);
    if (rest) yield rest;
  }
}

function decode(
  decoder: TextDecoder,
  piece: Uint8Array | undefined,
  offset: number,
  lineAtStart: number,
  label: string,
): string {
  try {
    return piece ? decoder.decode(piece, { stream: true }) : decoder.decode();
  } catch {
    if (offset < SNIFF_BYTES) throw notText(label);
    const line = piece ? lineAtStart + lineBreaksBefore(piece, firstInvalidUtf8(piece)) : lineAtStart;
    throw new FileRejected(
      'not_text',
      `The file is not a valid ${label} file: it holds bytes that are not UTF-8 text (line ${line}); ` +
        'save it with UTF-8 encoding and upload it again',
      { line },
    );
  }
}

function chooseDecoder(first: Uint8Array, label: string): TextDecoder {
  if (startsWith(first, [0xff, 0xfe])) return new TextDecoder('utf-16le', { fatal: true });
  if (startsWith(first, [0xfe, 0xff])) return new TextDecoder('utf-16be', { fatal: true });
  if (startsWith(first, [0x50, 0x4b, 0x03, 0x04])) {
    throw new FileRejected(
      'not_text',
      `The file is not a valid ${label} file: it looks like an Excel workbook or a zip archive ` +
        '(upload Excel workbooks with the .xlsx extension)',
    );
  }
  if (startsWith(first, [0xd0, 0xcf, 0x11, 0xe0])) {
    throw new FileRejected(
      'not_text',
      `The file is not a valid ${label} file: it looks like an old Excel (.xls) or Word document ` +
        '(save it as CSV or .xlsx)',
    );
  }
  // The decoder drops a UTF-8 BOM itself (ignoreBOM defaults to false).
  return new TextDecoder('utf-8', { fatal: true });
}

function startsWith(bytes: Uint8Array, prefix: number[]): boolean {
  return prefix.every((byte, i) => bytes[i] === byte);
}

function notText(label: string): FileRejected {
  return new FileRejected(
    'not_text',
    `The file is not a valid ${label} file: it holds binary data, not text`,
  );
}

/** Where a piece stops being UTF-8 (only computed for the error message); its length when no fault is found. */
function firstInvalidUtf8(bytes: Uint8Array): number {
  let i = 0;
  while (i < bytes.length) {
    const lead = bytes[i];
    const size =
      lead < 0x80
        ? 1
        : lead >= 0xc2 && lead <= 0xdf
          ? 2
          : lead >= 0xe0 && lead <= 0xef
            ? 3
            : lead >= 0xf0 && lead <= 0xf4
              ? 4
              : 0;
    if (size === 0) return i;
    for (let k = 1; k < size; k++) {
      // A sequence cut off by the end of the piece continues in the next one: not a fault here.
      if (i + k >= bytes.length) return bytes.length;
      if ((bytes[i + k] & 0xc0) !== 0x80) return i;
    }
    i += size;
  }
  return bytes.length;
}

function lineBreaksBefore(bytes: Uint8Array, end: number): number {
  let breaks = 0;
  for (let i = 0; i < end; i++) {
    if (bytes[i] === 0x0a ? bytes[i - 1] !== 0x0d : bytes[i] === 0x0d) breaks += 1;
  }
  return breaks;
}
