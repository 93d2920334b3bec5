import { ReadableStream } from 'node:stream/web';
import { describe, expect, it } from 'vitest';
import { FileRejected } from '../errors';
import { readRows } from '../read-rows';
import { collect, peakRssGrowth, sourceOf } from '../testing/helpers';

const rowsOf = (...pieces: (string | Uint8Array)[]): Promise<string[][]> =>
  collect(readRows(sourceOf(...pieces), 'csv'));

describe('readRows (CSV)', () => {
  it('reads RFC 4180 quoting: delimiters, doubled quotes and line breaks inside quotes', async () => {
    const rows = await rowsOf('email,note\r\na@example.com,"x, ""y""\r\nz"\r\nb@example.com,plain\r\n');
    expect(rows).toEqual([
      ['email', 'note'],
      ['a@example.com', 'x, "y"\r\nz'],
      ['b@example.com', 'plain'],
    ]);
  });

  it.each([
    [';', 'email;name\na@example.com;Ann\nb@example.com;Bob\n'],
    ['\t', 'email\tname\na@example.com\tAnn\nb@example.com\tBob\n'],
    ['|', 'email|name\na@example.com|Ann\nb@example.com|Bob\n'],
    [',', 'email,name\na@example.com,Ann\nb@example.com,Bob\n'],
  ])('detects the %j delimiter', async (_delimiter, text) => {
    expect(await rowsOf(text)).toEqual([
      ['email', 'name'],
      ['a@example.com', 'Ann'],
      ['b@example.com', 'Bob'],
    ]);
  });

  it('keeps a one-column file whole', async () => {
    expect(await rowsOf('a@example.com\nb@example.com')).toEqual([['a@example.com'], ['b@example.com']]);
  });

  it('drops the BOM and blank rows, and keeps cells otherwise as they are', async () => {
    const rows = await rowsOf('\uFEFFEmail , Name\r\n\r\n,,\r\n  a@example.com , Ann \r\n');
    expect(rows).toEqual([
      ['Email ', ' Name'],
      ['  a@example.com ', ' Ann '],
    ]);
  });

  it('handles rows split across pieces anywhere, even inside a CRLF or a quoted field', async () => {
    const text = 'email,note\r\n"a@example.com","multi\r\nline"\r\nb@example.com,"x""y"\r\n';
    const expected = await rowsOf(text);
    for (let cut = 1; cut < text.length; cut++) {
      expect(await rowsOf(text.slice(0, cut), text.slice(cut))).toEqual(expected);
    }
  });

  it('reads UTF-16 with a BOM, as Excel saves "Unicode text"', async () => {
    const utf16 = Buffer.concat([
      Buffer.from([0xff, 0xfe]),
      Buffer.from('email\tname\r\nå@example.com\tÅse\r\n', 'utf16le'),
    ]);
    expect(await rowsOf(utf16)).toEqual([
      ['email', 'name'],
      ['å@example.com', 'Åse'],
    ]);
  });

  it('reads a web ReadableStream, as the object store hands out', async () => {
    const bytes = new TextEncoder().encode('email\na@example.com\n');
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(bytes.subarray(0, 7));
        controller.enqueue(bytes.subarray(7));
        controller.close();
      },
    });
    expect(await collect(readRows(stream, 'csv'))).toEqual([['email'], ['a@example.com']]);
  });

  describe('refuses', () => {
    it('an unterminated quote, with the line it starts on', async () => {
      const text = 'email,name\na@example.com,Ann\nb@example.com,"Bob\nc@example.com,Cy\n';
      const error = await rowsOf(text).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(FileRejected);
      expect(error).toMatchObject({ code: 'INVALID_REQUEST', reason: 'broken_quotes' });
      expect((error as Error).message).toContain('line 3');
      expect((error as Error).message).toContain('never closed');
    });

    it('text after a closing quote, with its line', async () => {
      const error = await rowsOf('email,name\n"a@example.com"x,Ann\n').catch((e: unknown) => e);
      expect(error).toMatchObject({ reason: 'broken_quotes', message: expect.stringContaining('line 2') });
    });

    it('an unterminated quote that swallows the rest of a big file, without buffering it all', async () => {
      const tail = 'x@example.com,filler\n'.repeat(100_000); // 2 MB after the open quote
      const error = await rowsOf('email,name\n"open,quote\n', tail).catch((e: unknown) => e);
      expect(error).toMatchObject({ reason: 'broken_quotes', message: expect.stringContaining('line 2') });
    });

    it('binary garbage named .csv', async () => {
      const garbage = Buffer.alloc(4096);
      for (let i = 0; i < garbage.length; i++) garbage[i] = (i * 7919 + 13) % 256;
      await expect(rowsOf(garbage)).rejects.toMatchObject({
        code: 'INVALID_REQUEST',
        reason: 'not_text',
        message: expect.stringContaining('not a valid CSV file'),
      });
    });

    it('invalid UTF-8 without NUL bytes', async () => {
      await expect(
        rowsOf(Buffer.from([0x65, 0x6d, 0xc3, 0x28, 0x0a, 0xff, 0xfe, 0x41])),
      ).rejects.toMatchObject({
        reason: 'not_text',
        message: expect.stringContaining('not a valid CSV file'),
      });
    });

    it('invalid UTF-8 after the first 64 KiB, naming the line', async () => {
      const start = 'a@example.com\n'.repeat(10_000);
      const error = await rowsOf(start, Buffer.from([0x62, 0xff, 0x0a])).catch((e: unknown) => e);
      expect(error).toMatchObject({ reason: 'not_text', message: expect.stringContaining('line 10001') });
    });

    it('an Excel workbook named .csv, saying what it looks like', async () => {
      await expect(rowsOf(Buffer.from('PK\u0003\u0004rest of a zip'))).rejects.toMatchObject({
        message: expect.stringContaining('.xlsx'),
      });
    });

    it('a 10 MB line, reading only a bounded part of it', async () => {
      const piece = Buffer.alloc(64 * 1024, 'a');
      let produced = 0;
      async function* tenMegabyteLine(): AsyncGenerator<Uint8Array> {
        yield Buffer.from('email\nb@example.com\n');
        for (let i = 0; i < 160; i++) {
          produced += piece.length;
          yield piece;
        }
      }
      let error: unknown;
      const growth = await peakRssGrowth(async () => {
        error = await collect(readRows(tenMegabyteLine(), 'csv')).catch((e: unknown) => e);
      });
      expect(error).toMatchObject({
        code: 'INVALID_REQUEST',
        reason: 'line_too_long',
        message: 'The file has a line longer than 1 MiB (line 3)',
      });
      expect(produced).toBeLessThan(2 * 1024 * 1024);
      expect(growth).toBeLessThan(200 * 1024 * 1024);
    });

    it('more data rows than maxRows, as PAYLOAD_TOO_LARGE', async () => {
      const text = 'email\n' + 'a@example.com\n'.repeat(11);
      await expect(collect(readRows(sourceOf(text), 'csv', { maxRows: 10 }))).rejects.toMatchObject({
        code: 'PAYLOAD_TOO_LARGE',
        reason: 'too_many_rows',
      });
      expect(await collect(readRows(sourceOf(text), 'csv', { maxRows: 11 }))).toHaveLength(12);
    });
  });
});
