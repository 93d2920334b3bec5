/** An element of an OOXML part, as an XML parser reports its start. */
export interface XmlElement {
  /** Local name: prefixes vary between writers (`x:row` from the .NET SDK), the meaning does not. */
  name: string;
  attributes: Record<string, string>;
}

/** Takes one part's XML events, in document order, from whichever parser reads the part. */
export interface XmlHandler {
  open(element: XmlElement): void;
  close(name: string): void;
  text(text: string): void;
}

/** `x:row` -> `row`. */
export function localName(name: string): string {
  return name.slice(name.indexOf(':') + 1);
}

/** Attribute by local name (`r:id` and `id` alike), since prefixes vary. */
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
