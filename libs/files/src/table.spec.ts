import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { openTable } from './table';
import { collect, peakRssGrowth, sourceOf } from './testing/helpers';

describe('openTable', () => {
  it('chooses the column and hands out the data rows, header excluded, numbered from 1', async () => {
    const table = await openTable(
      sourceOf('name;Email\nAnn; a@example.com \n\nBob;b@example.com\n'),
      'csv',
      {},
    );
    expect(table.column).toMatchObject({ hasHeader: true, index: 1, name: 'Email' });
    expect(await collect(table.rows)).toEqual([
      { rowNumber: 1, cells: ['Ann', ' a@example.com '], email: 'a@example.com' },
      { rowNumber: 2, cells: ['Bob', 'b@example.com'], email: 'b@example.com' },
    ]);
  });

  it('keeps the first row of a header-less TXT list as data', async () => {
    const table = await openTable(sourceOf('a@example.com\nb@example.com\n'), 'txt', {
      emailColumn: 'email',
    });
    expect(table.column).toMatchObject({ hasHeader: false, index: 0, headers: ['column_1'] });
    expect((await collect(table.rows)).map((row) => row.rowNumber)).toEqual([1, 2]);
  });

  it('refuses from openTable itself when the column cannot be chosen, releasing the source', async () => {
    const source = sourceOf('name,phone\nAnn,555\n');
    await expect(openTable(source, 'csv', {})).rejects.toMatchObject({ reason: 'no_address' });
    await expect(
      openTable(sourceOf('name,email\nAnn,a@example.com\n'), 'csv', { emailColumn: 'mail' }),
    ).rejects.toMatchObject({
      reason: 'email_column_missing',
      message: expect.stringContaining('"mail"'),
    });
    expect(source.destroyed).toBe(true);
  });

  it('hands out the same data rows in batches, header excluded, and only one way', async () => {
    const text = 'email,n\n' + Array.from({ length: 5000 }, (_, i) => `u${i}@example.com,${i}\n`).join('');
    const byRow = (await collect((await openTable(sourceOf(text), 'csv')).rows)).map((r) => r.cells);
    const table = await openTable(sourceOf(text), 'csv');
    const batches = await collect(table.batches);
    expect(batches.length).toBeGreaterThan(1);
    expect(batches.flat()).toEqual(byRow);
    expect(byRow).toHaveLength(5000);
    expect(byRow[0]).toEqual(['u0@example.com', '0']);
    await expect(collect(table.rows)).rejects.toThrow(/either rows or batches/);
  });

  it('applies maxRows to data rows exactly, as PAYLOAD_TOO_LARGE', async () => {
    const text = 'email\n' + 'a@example.com\n'.repeat(150);
    const ok = await openTable(sourceOf(text), 'csv', { limits: { maxRows: 150 } });
    expect(await collect(ok.rows)).toHaveLength(150);
    const tooMany = await openTable(sourceOf(text), 'csv', { limits: { maxRows: 149 } });
    await expect(collect(tooMany.rows)).rejects.toMatchObject({
      code: 'PAYLOAD_TOO_LARGE',
      reason: 'too_many_rows',
    });
  });

  it('surfaces errors further down the file while iterating', async () => {
    // Past the first 64 KiB, so the first rows parse before the broken quote is met.
    const text = 'email\n' + 'a@example.com\n'.repeat(10_000) + '"broken\n';
    const table = await openTable(sourceOf(text), 'csv', {});
    await expect(collect(table.rows)).rejects.toMatchObject({
      reason: 'broken_quotes',
      message: expect.stringContaining('line 10002'),
    });
  });

  it('releases the source on close() without reading the rest', async () => {
    const source = Readable.from(
      (function* () {
        for (let i = 0; i < 1_000_000; i++) yield Buffer.from(`u${i}@example.com\n`);
      })(),
    );
    const table = await openTable(source, 'txt', {});
    await table.close();
    expect(source.destroyed).toBe(true);
  });

  it('streams a 200,000-row CSV row by row with bounded memory', async () => {
    const total = 200_000;
    const source = Readable.from(
      (function* () {
        yield Buffer.from('id,first name,last name,email,company\r\n');
        let batch = '';
        for (let i = 1; i <= total; i++) {
          batch += `${i},First${i},"Last, ${i}",user${i}@example${i % 97}.com,"Company ""${i % 13}"""\r\n`;
          if (i % 1000 === 0) {
            yield Buffer.from(batch);
            batch = '';
          }
        }
      })(),
    );
    let rows = 0;
    let last = { rowNumber: 0, email: '' };
    const growth = await peakRssGrowth(async () => {
      const table = await openTable(source, 'csv', {});
      expect(table.column).toMatchObject({ hasHeader: true, index: 3, name: 'email' });
      for await (const row of table.rows) {
        rows += 1;
        last = row;
      }
    });
    expect(rows).toBe(total);
    expect(last).toMatchObject({ rowNumber: total, email: `user${total}@example${total % 97}.com` });
    expect(growth).toBeLessThan(200 * 1024 * 1024);
  });
});
