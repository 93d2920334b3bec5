/** How many addresses one bulk request takes (the gateway's BULK_MAX_EMAILS default). */
export const BULK_LIMIT = 100;

/**
 * The addresses of a pasted text: one per line, or separated by commas, semicolons or spaces; blanks dropped,
 * repeats (ignoring case) kept once, in the order given.
 */
export function parseAddresses(text: string): string[] {
  const seen = new Set<string>();
  const out: string[] = [];
  for (const part of text.split(/[\s,;]+/)) {
    const address = part.trim().replace(/^<(.*)>$/, '$1');
    if (address === '') continue;
    const key = address.toLowerCase();
    if (seen.has(key)) continue;
    seen.add(key);
    out.push(address);
  }
  return out;
}

/** The address with the suggested domain in place of its own: "jane@gmial.com" + "gmail.com". */
export function withSuggestedDomain(email: string, suggestion: string): string {
  const at = email.lastIndexOf('@');
  if (suggestion === '' || suggestion.includes('@')) return suggestion;
  return at === -1 ? `${email}@${suggestion}` : `${email.slice(0, at)}@${suggestion}`;
}
