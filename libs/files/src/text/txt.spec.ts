import { describe, expect, it } from 'vitest';
import { readRows } from '../read-rows';
import { collect, sourceOf } from '../testing/helpers';

const rowsOf = (...pieces: (string | Uint8Array)[]): Promise<string[][]> =>
  collect(readRows(sourceOf(...pieces), 'txt'));

describe('readRows (TXT)', () => {
  it('gives one trimmed address per line, skipping blank lines, whatever the line ends', async () => {
    expect(
      await rowsOf('\uFEFF a@example.com \r\n\r\nb@example.com\nc@example.com\r  \n"quoted, kept"\n'),
    ).toEqual([['a@example.com'], ['b@example.com'], ['c@example.com'], ['"quoted, kept"']]);
  });

  it('joins lines split across pieces, even inside a CRLF', async () => {
    expect(await rowsOf('a@exa', 'mple.com\r', '\nb@example.com')).toEqual([
      ['a@example.com'],
      ['b@example.com'],
    ]);
  });

  it('refuses binary data and overlong lines', async () => {
    await expect(rowsOf(Buffer.from([0x61, 0x00, 0x62, 0x0a]))).rejects.toMatchObject({
      code: 'INVALID_REQUEST',
      message: expect.stringContaining('not a valid text file'),
    });
    await expect(
      collect(readRows(sourceOf('a@example.com\n', 'x'.repeat(2000)), 'txt', { maxLineBytes: 1024 })),
    ).rejects.toMatchObject({
      reason: 'line_too_long',
      message: 'The file has a line longer than 1 KiB (line 2)',
    });
  });
});
