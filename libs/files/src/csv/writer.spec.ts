import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { collect } from '../testing/helpers';
import { CsvWriter, formatCsvRow } from './writer';

async function text(stream: AsyncIterable<Uint8Array>): Promise<string> {
  return Buffer.concat(await collect(stream)).toString('utf8');
}

describe('formatCsvRow', () => {
  it('quotes only what needs it, doubles quotes, ends lines with CRLF and escapes formulas', () => {
    expect(formatCsvRow(['a@example.com', 'valid', '95'])).toBe('a@example.com,valid,95\r\n');
    expect(formatCsvRow(['x,y', 'say "hi"', 'two\nlines', 'mx1;mx2'])).toBe(
      '"x,y","say ""hi""","two\nlines","mx1;mx2"\r\n',
    );
    expect(formatCsvRow(['=1+2', '-3', '@x', '+x'])).toBe("'=1+2,'-3,'@x,'+x\r\n");
    expect(formatCsvRow(['\tx'])).toBe('"\'\tx"\r\n');
  });

  it('writes a row of one empty cell as "" so it is not a blank line', () => {
    expect(formatCsvRow([''])).toBe('""\r\n');
    expect(formatCsvRow(['', ''])).toBe(',\r\n');
  });
});

describe('CsvWriter', () => {
  it('produces UTF-8 without a BOM on a web ReadableStream', async () => {
    const writer = new CsvWriter();
    const reading = collect(writer.readable);
    await writer.write([
      ['email', 'name'],
      ['å@example.com', 'Åse 😀'],
    ]);
    await writer.write([]);
    await writer.end();
    const bytes = Buffer.concat(await reading);
    expect(bytes.subarray(0, 3).equals(Buffer.from([0xef, 0xbb, 0xbf]))).toBe(false);
    expect(bytes.toString('utf8')).toBe('email,name\r\nå@example.com,Åse 😀\r\n');
    expect(writer.rowsWritten).toBe(2);
    expect(writer.bytesWritten).toBe(bytes.length);
  });

  it('makes write() wait while the reader is behind, so memory stays bounded', async () => {
    const writer = new CsvWriter({ highWaterMarkBytes: 1024 });
    const row = ['x'.repeat(600)];
    let resolved = false;
    const first = writer.write([row]);
    const second = first.then(() => writer.write([row]));
    void second.then(() => {
      resolved = true;
    });
    await new Promise((resolve) => setImmediate(resolve));
    expect(resolved).toBe(false);
    const reader = writer.readable.getReader();
    await reader.read();
    await reader.read();
    await second;
    expect(resolved).toBe(true);
    reader.releaseLock();
  });

  it('pipes into a Node Writable', async () => {
    const pieces: Buffer[] = [];
    const sink = new Writable({
      write(chunk: Buffer, _encoding, callback) {
        pieces.push(chunk);
        callback();
      },
    });
    const writer = new CsvWriter();
    const piping = writer.pipeTo(sink);
    for (let i = 0; i < 1000; i++) await writer.write([[`u${i}@example.com`, 'valid']]);
    await writer.end();
    await piping;
    const lines = Buffer.concat(pieces).toString('utf8').split('\r\n');
    expect(lines).toHaveLength(1001);
    expect(lines[999]).toBe('u999@example.com,valid');
  });

  it('rejects writes once the reader has cancelled, and abort() fails the reader', async () => {
    const cancelled = new CsvWriter();
    await cancelled.readable.cancel(new Error('store down'));
    await expect(cancelled.write([['a']])).rejects.toThrow(/cancelled/);

    const aborted = new CsvWriter();
    const reading = text(aborted.readable);
    await aborted.write([['a']]);
    aborted.abort(new Error('verification failed'));
    await expect(reading).rejects.toThrow('verification failed');
    // A write after abort() says so, and carries the reason (a producer stopped by a failed put reports why).
    const late = await aborted.write([['b']]).catch((err: unknown) => err);
    expect(late).toBeInstanceOf(Error);
    expect((late as Error).message).toMatch(/aborted/);
    expect(((late as Error).cause as Error).message).toBe('verification failed');
  });
});
