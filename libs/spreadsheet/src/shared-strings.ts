import { type XmlElement, type XmlHandler, decodeOoxmlEscapes } from './xml';

/**
 * Reads the shared-strings table into its items, in order: each `<si>` is a plain `<t>` or rich-text runs;
 * phonetic hints (`<rPh>`) are not part of the value. What is kept, and how much, is the subclass's.
 */
export abstract class SharedStringsHandler implements XmlHandler {
  private inItem = false;
  private inPhonetic = false;
  private inText = false;
  private item = '';

  /** The next item of the table, its OOXML escapes decoded. */
  protected abstract addString(value: string): void;

  open(element: XmlElement): void {
    switch (element.name) {
      case 'si':
        this.inItem = true;
        this.item = '';
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
      case 'si':
        this.inItem = false;
        this.addString(decodeOoxmlEscapes(this.item));
        break;
      case 'rPh':
        this.inPhonetic = false;
        break;
      case 't':
        this.inText = false;
        break;
    }
  }

  text(text: string): void {
    if (this.inText) this.item += text;
  }
}
