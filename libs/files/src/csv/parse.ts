import Papa from 'papaparse';
import { FileRejected, formatSize } from '../errors';
import { type CsvDialect, type Newline, detectDialect } from './dialect';

/** Enough text to see the first rows of any sane file when guessing the dialect. */
const SAMPLE_CHARS = 64 * 1024;

export interface CsvParseOptions {
  /** Fixed dialect (our own result files); guessed from the start of the file when absent. */
  dialect?: CsvDialect;
  /** An unfinished record longer than this is refused: it bounds what the parser holds. */
  maxRecordChars: number;
  /** "CSV", for messages. */
  label: string;
}

/**
 * Streams RFC 4180 rows out of decoded text with papaparse's core parser. papaparse's own Node duplex stream
 * drops parse errors, so this drives the parser the way its ChunkStreamer does (parse what is complete, keep
 * the unfinished record for the next piece) while keeping the errors and the line numbers customers need.
 * Yields the rows of each piece as one batch.
 */
export async function* parseCsvText(
  texts: AsyncIterable<string>,
  options: CsvParseOptions,
): AsyncGenerator<string[][]> {
  const iterator = texts[Symbol.asyncIterator]();
  let sample = '';
  let done = false;
  while (!done && sample.length < SAMPLE_CHARS) {
    const next = await iterator.next();
    if (next.done) done = true;
    else sample += next.value;
  }
  const dialect = options.dialect ?? detectDialect(sample);
  const chunker = new CsvChunker(dialect, options);
  if (sample) yield done ? chunker.end(sample) : chunker.push(sample);
  while (!done) {
    const next = await iterator.next();
    if (next.done) {
      done = true;
      yield chunker.end('');
    } else {
      yield chunker.push(next.value);
    }
  }
}

interface PapaError {
  code: string;
  row?: number;
  index?: number;
}

class CsvChunker {
  private readonly parser: Papa.Parser;
  private readonly lineBreak: string;
  private partial = '';
  /** Physical line (1-based) on which `partial` starts. */
  private line = 1;

  constructor(
    private readonly dialect: CsvDialect,
    private readonly options: CsvParseOptions,
  ) {
    this.parser = new Papa.Parser({ delimiter: dialect.delimiter, newline: dialect.newline, quoteChar: '"' });
    this.lineBreak = lastCharOf(dialect.newline);
  }

  /** The rows a piece of text completes; an unfinished last record waits for the next piece. */
  push(text: string): string[][] {
    return this.parse(this.partial + text, false);
  }

  /** The rows of the last piece of text, the last record included. */
  end(text: string): string[][] {
    const rows = this.push(text);
    // The last record is parsed on its own once no more text can come: parsing "a\r\n" as final input would
    // invent an empty record after the last line break.
    if (this.partial) rows.push(...this.parse(this.partial, true));
    return rows;
  }

  private parse(input: string, final: boolean): string[][] {
    if (!input) return [];
    const result = this.parser.parse(input, 0, !final);
    const rows = result.data as string[][];
    for (const error of result.errors as PapaError[]) {
      // An error on the unfinished last row may vanish once the rest of the record arrives (a CRLF split
      // between two pieces looks like a stray quote), so only errors on complete rows count until the end.
      if (!final && (error.row ?? 0) >= rows.length) continue;
      throw this.quoteError(error, input);
    }
    const cursor = final ? input.length : result.meta.cursor;
    this.line += this.countBreaks(input, cursor);
    this.partial = input.slice(cursor);
    if (this.partial.length > this.options.maxRecordChars) {
      throw new FileRejected(
        'broken_quotes',
        `The file is not a valid ${this.options.label} file: the quoted field that starts on line ${this.line} ` +
          `is never closed, or one record is longer than ${formatSize(this.options.maxRecordChars)}`,
        { line: this.line },
      );
    }
    return rows;
  }

  private quoteError(error: PapaError, input: string): FileRejected {
    const line = this.line + this.countBreaks(input, error.index ?? 0);
    const label = this.options.label;
    const message =
      error.code === 'MissingQuotes'
        ? `The file is not a valid ${label} file: the quoted field that starts on line ${line} is never closed`
        : `The file is not a valid ${label} file: the quoted field that starts on line ${line} has text after its closing quote`;
    return new FileRejected('broken_quotes', message, { line, delimiter: this.dialect.delimiter });
  }

  private countBreaks(text: string, end: number): number {
    let count = 0;
    for (
      let at = text.indexOf(this.lineBreak);
      at !== -1 && at < end;
      at = text.indexOf(this.lineBreak, at + 1)
    ) {
      count += 1;
    }
    return count;
  }
}

function lastCharOf(newline: Newline): string {
  return newline.charAt(newline.length - 1);
}
