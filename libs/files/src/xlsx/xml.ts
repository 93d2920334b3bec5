import { type XmlHandler, localName } from '@emailverify/spreadsheet';
import { SaxesParser } from 'saxes';
import { FileRejected } from '../errors';
import { notXlsx } from './rejections';

/** Takes one part's XML events; `finished` once it has all it needs, and the rest of the part is not read. */
export interface PartHandler extends XmlHandler {
  readonly finished?: boolean;
}

/** Streams one XML part of the workbook through a handler; yields after each piece so the caller can drain. */
export async function* parseXml(
  pieces: AsyncIterable<Uint8Array>,
  handler: PartHandler,
  part: string,
): AsyncGenerator<void> {
  const parser = new SaxesParser<{ xmlns: false }>({ xmlns: false });
  parser.on('doctype', () => {
    // OOXML parts never carry a DTD; refusing one rules out entity tricks whatever the XML parser does.
    throw notXlsx(`its part ${part} declares a DTD`);
  });
  parser.on('opentag', (tag) => handler.open({ name: localName(tag.name), attributes: tag.attributes }));
  parser.on('closetag', (tag) => handler.close(localName(tag.name)));
  parser.on('text', (text) => handler.text(text));
  parser.on('cdata', (text) => handler.text(text));
  const decoder = new TextDecoder('utf-8');
  const write = (text: string | null): void => {
    try {
      parser.write(text);
    } catch (error) {
      if (error instanceof FileRejected) throw error;
      throw notXlsx(`its part ${part} is damaged`);
    }
  };
  for await (const piece of pieces) {
    write(decoder.decode(piece, { stream: true }));
    yield;
    if (handler.finished) return;
  }
  write(decoder.decode());
  try {
    parser.close();
  } catch {
    throw notXlsx(`its part ${part} is damaged`);
  }
  yield;
}

/** Parses a small part completely. */
export async function parseXmlText(text: string, handler: PartHandler, part: string): Promise<void> {
  const pieces = (async function* () {
    yield Buffer.from(text, 'utf8');
  })();
  for await (const _ of parseXml(pieces, handler, part)) {
    // Nothing to drain: the handler gathers what it needs.
  }
}
