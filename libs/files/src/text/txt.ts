/**
 * One address per line: each non-blank line becomes the row [line.trim()]. Lines end with LF, CRLF or CR;
 * quotes and commas mean nothing here.
 */
export async function* parseTxtLines(texts: AsyncIterable<string>): AsyncGenerator<string[][]> {
  let partial = '';
  for await (const text of texts) {
    const lines = (partial + text).split(/\r\n|\n|\r/);
    // The last piece may be the start of a line that continues in the next text (a split CRLF leaves an
    // empty line behind, which is skipped like any blank line).
    partial = lines.pop() ?? '';
    yield toRows(lines);
  }
  yield toRows([partial]);
}

function toRows(lines: string[]): string[][] {
  const rows: string[][] = [];
  for (const line of lines) {
    const trimmed = line.trim();
    if (trimmed) rows.push([trimmed]);
  }
  return rows;
}
