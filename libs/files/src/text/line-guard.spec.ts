import { describe, expect, it } from 'vitest';
import { FileRejected } from '../errors';
import { LineGuard } from './line-guard';

/** The rule spelled out byte by byte: what LineGuard must agree with. */
function reference(pieces: Uint8Array[], max: number): { line: number } | { refusedOnLine: number } {
  let line = 1;
  let length = 0;
  let lastWasCr = false;
  for (const piece of pieces) {
    for (const byte of piece) {
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
        if (length > max) return { refusedOnLine: line };
      }
    }
  }
  return { line };
}

function guarded(pieces: Uint8Array[], max: number): { line: number } | { refusedOnLine: number } {
  const guard = new LineGuard(max);
  try {
    for (const piece of pieces) guard.scan(piece);
  } catch (err) {
    expect(err).toBeInstanceOf(FileRejected);
    expect((err as FileRejected).reason).toBe('line_too_long');
    return { refusedOnLine: (err as { details?: { line: number } }).details?.line ?? -1 };
  }
  return { line: guard.line };
}

/** A small deterministic generator, so that a failure can be replayed. */
function random(seed: number): () => number {
  let x = seed;
  return () => {
    x = (Math.imul(x, 1103515245) + 12345) >>> 0;
    return x / 2 ** 32;
  };
}

describe('LineGuard', () => {
  it('counts lines ended by LF, CR and CRLF across pieces, and refuses the first line over the limit', () => {
    const next = random(7);
    for (let round = 0; round < 2_000; round++) {
      const size = Math.floor(next() * 60);
      const bytes = new Uint8Array(size);
      for (let i = 0; i < size; i++) {
        const r = next();
        bytes[i] = r < 0.15 ? 0x0a : r < 0.3 ? 0x0d : 0x61;
      }
      // Cut into pieces anywhere, CRLF pairs included, and some pieces views into a larger buffer.
      const pieces: Uint8Array[] = [];
      for (let at = 0; at < size;) {
        const end = Math.min(size, at + 1 + Math.floor(next() * 12));
        pieces.push(next() < 0.5 ? bytes.slice(at, end) : bytes.subarray(at, end));
        at = end;
      }
      const max = 1 + Math.floor(next() * 10);
      expect(guarded(pieces, max)).toEqual(reference(pieces, max));
    }
  });
});
