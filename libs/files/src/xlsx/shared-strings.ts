import { FileRejected, formatSize } from '../errors';
import { type XmlElement, type XmlHandler, decodeOoxmlEscapes } from './xml';

/**
 * Collects the shared-strings table (`<si>` items: plain `<t>` or rich-text runs; phonetic `<rPh>` hints are
 * not part of the value). It must be in memory while the sheet streams, so its size is capped.
 */
export class SharedStringsCollector implements XmlHandler {
  readonly strings: string[] = [];
  private chars = 0;
  private inItem = false;
  private inPhonetic = false;
  private inText = false;
  private parts: string[] = [];

  constructor(private readonly maxChars: number) {}

  open(element: XmlElement): void {
    switch (element.name) {
      case 'si':
        this.inItem = true;
        this.parts = [];
        break;
      case 'rPh':
        this.inPhonetic = true;
        break;
      case 't':
        this.inText = this.inItem && !this.inPhonetic;
        break;
    }
  }

  close(name: string): void {
    switch (name) {
      case 'si': {
        const value = decodeOoxmlEscapes(this.parts.join(''));
        this.chars += value.length;
        if (this.chars > this.maxChars) {
          throw new FileRejected(
            'zip_bomb',
            `The XLSX file holds more than ${formatSize(this.maxChars)} of distinct text; upload it as CSV instead`,
          );
        }
        this.strings.push(value);
        this.inItem = false;
        break;
      }
      case 'rPh':
        this.inPhonetic = false;
        break;
      case 't':
        this.inText = false;
        break;
    }
  }

  text(text: string): void {
    if (this.inText) this.parts.push(text);
  }
}
