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

  scan(bytes: Uint8Array): void {
    let { line, length, lastWasCr } = this;
    const max = this.maxLineBytes;
    for (let i = 0; i < bytes.length; i++) {
      const byte = bytes[i];
      if (byte === 0x0a) {
        if (!lastWasCr) line += 1;
        length = 0;
        lastWasCr = false;
      } else if (byte === 0x0d) {
        line += 1;
        length = 0;
        lastWasCr = true;
      } else {
        lastWasCr = false;
        length += 1;
        if (length > max) {
          throw new FileRejected(
            'line_too_long',
            `The file has a line longer than ${formatSize(max)} (line ${line})`,
            {
              line,
            },
          );
        }
      }
    }
    this.line = line;
    this.length = length;
    this.lastWasCr = lastWasCr;
  }
}
