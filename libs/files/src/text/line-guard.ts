import { FileRejected, formatSize } from '../errors';

/**
 * Counts bytes per physical line on the raw bytes, before decoding or parsing, so that a 10 MB line is refused
 * after reading 1 MiB of it instead of being buffered by the parser. CR, LF and CRLF all end a line.
 */
export class LineGuard {
  /** 1-based number of the line being read. */
  line = 1;
  private length = 0;
  private lastWasCr = false;

  constructor(private readonly maxLineBytes: number) {}

  scan(piece: Uint8Array): void {
    // Line ends are looked for with Buffer's indexOf (native), not byte by byte in JavaScript: a large file is
    // scanned twice (job creation and the merge).
    const bytes = Buffer.from(piece.buffer, piece.byteOffset, piece.byteLength);
    let { line, length, lastWasCr } = this;
    let lf = bytes.indexOf(0x0a);
    let cr = bytes.indexOf(0x0d);
    let at = 0;
    while (at < bytes.length) {
      if (lf !== -1 && lf < at) lf = bytes.indexOf(0x0a, at);
      if (cr !== -1 && cr < at) cr = bytes.indexOf(0x0d, at);
      const next = lf === -1 ? cr : cr === -1 ? lf : Math.min(lf, cr);
      const end = next === -1 ? bytes.length : next;
      if (end > at) {
        // Bytes of the line up to its end, or to the end of this piece.
        length += end - at;
        lastWasCr = false;
        if (length > this.maxLineBytes) {
          throw new FileRejected(
            'line_too_long',
            `The file has a line longer than ${formatSize(this.maxLineBytes)} (line ${line})`,
            { line },
          );
        }
      }
      if (next === -1) break;
      // LF ends a line unless it completes a CRLF; CR always does.
      if (bytes[next] === 0x0d || !lastWasCr) line += 1;
      lastWasCr = bytes[next] === 0x0d;
      length = 0;
      at = next + 1;
    }
    this.line = line;
    this.length = length;
    this.lastWasCr = lastWasCr;
  }
}
