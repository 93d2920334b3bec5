import { SharedStringsHandler } from '@emailverify/spreadsheet';
import { FileRejected, formatSize } from '../errors';

/** Collects the shared-strings table. It must be in memory while the sheet streams, so its size is capped. */
export class SharedStringsCollector extends SharedStringsHandler {
  readonly strings: string[] = [];
  private chars = 0;

  constructor(private readonly maxChars: number) {
    super();
  }

  protected override addString(value: string): void {
    this.chars += value.length;
    if (this.chars > this.maxChars) {
      throw new FileRejected(
        'zip_bomb',
        `The XLSX file holds more than ${formatSize(this.maxChars)} of distinct text; upload it as CSV instead`,
      );
    }
    this.strings.push(value);
  }
}
