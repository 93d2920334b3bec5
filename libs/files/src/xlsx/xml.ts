import { SaxesParser } from 'saxes';
import { FileRejected } from '../errors';
import { notXlsx } from './rejections';

export interface XmlElement {
  /** Local name: prefixes vary between writers (`x:row` from the .NET SDK), the meaning does not. */
  name: string;
  attributes: Record<string, string>;
}

export interface XmlHandler {
  open(element: XmlElement): void;
  close(name: string): void;
  text(text: string): void;
  /** True once the handler has all it needs; the rest of the part is not read. */
  readonly finished?: boolean;
}

/** Streams one XML part of the workbook through a handler; yields after each piece so the caller can drain. */
export async function* parseXml(
  pieces: AsyncIterable<Uint8Array>,
  handler: XmlHandler,
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
export async function parseXmlText(text: string, handler: XmlHandler, part: string): Promise<void> {
  const pieces = (async function* () {
    yield Buffer.from(text, 'utf8');
  })();
  for await (const _ of parseXml(pieces, handler, part)) {
    // Nothing to drain: the handler gathers what it needs.
  }
}

function localName(name: string): string {
  const colon = name.indexOf(':');
  return colon < 0 ? name : name.slice(colon + 1);
}

/** Attribute lookup by local name (`r:id` and `id` alike), since prefixes vary. */
export function attribute(element: XmlElement, name: string): string | undefined {
  const direct = element.attributes[name];
  if (direct !== undefined) return direct;
  for (const [key, value] of Object.entries(element.attributes)) {
    if (localName(key) === name) return value;
  }
  return undefined;
}

/** OOXML escapes characters XML cannot carry as `_xHHHH_` (Excel writes a CR as `_x000D_`). */
export function decodeOoxmlEscapes(text: string): string {
  if (!text.includes('_x')) return text;
  return text.replace(/_x([0-9A-Fa-f]{4})_/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));
}
