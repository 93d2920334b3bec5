/**
 * Strings appended one after another and kept as a few flat texts, a segment of `segmentSize` strings each:
 * about one byte a character, where a string of its own costs a header besides, and where a cell cut out of
 * the text a parser read would keep that whole piece of the file alive. Entries are found by number.
 */
export class TextPool {
  private readonly texts: string[] = [];
  /** Per closed segment: where each entry ends in its text. */
  private readonly ends: Uint32Array[] = [];
  private open: string[] = [];
  private count = 0;

  /** @param separator put between the entries of a segment's text (never part of an entry, when given). */
  constructor(
    private readonly segmentSize: number,
    private readonly separator = '',
  ) {}

  get size(): number {
    return this.count;
  }

  /** Appends `text`; returns its number (0, 1, …). */
  add(text: string): number {
    this.open.push(text);
    if (this.open.length === this.segmentSize) this.close();
    return this.count++;
  }

  /** Whether entry `index` is `text`. */
  equals(index: number, text: string): boolean {
    const segment = Math.floor(index / this.segmentSize);
    const position = index % this.segmentSize;
    if (segment === this.texts.length) return this.open[position] === text;
    const ends = this.ends[segment]!;
    const start = position === 0 ? 0 : ends[position - 1]! + this.separator.length;
    return ends[position]! - start === text.length && this.texts[segment]!.startsWith(text, start);
  }

  /** How many segments there are (the last one may be partly filled). */
  get segments(): number {
    return Math.ceil(this.count / this.segmentSize);
  }

  /** A segment's entries joined by the separator (closing the last segment when it is asked for). */
  segmentText(segment: number): string {
    if (segment === this.texts.length && this.open.length > 0) this.close();
    return this.texts[segment]!;
  }

  private close(): void {
    const ends = new Uint32Array(this.open.length);
    let at = 0;
    for (let i = 0; i < this.open.length; i++) {
      at += (i === 0 ? 0 : this.separator.length) + this.open[i]!.length;
      ends[i] = at;
    }
    // join copies every entry into one new flat string: nothing of the texts they were cut from stays.
    this.texts.push(this.open.join(this.separator));
    this.ends.push(ends);
    this.open = [];
  }
}

/**
 * The distinct cells of a file, each with a number: an open-addressing hash table of typed arrays (a 32-bit
 * hash and the number per slot, 8 bytes) over the pools that hold the cells' text, where a Map of strings
 * costs several times that per entry. A hash that matches is checked against the cell's text, so two cells
 * are the same only when they are equal.
 */
export class SeenCells {
  private hashes = new Int32Array(1 << 12);
  /** 0: free; n > 0: the address numbered n - 1; n < 0: the non-address numbered -n - 1. */
  private slots = new Int32Array(1 << 12);
  private used = 0;

  constructor(
    private readonly addresses: TextPool,
    private readonly others: TextPool,
  ) {}

  get size(): number {
    return this.used;
  }

  /** The address's number, or the non-address's as -(n + 1), or undefined when the cell was not seen yet. */
  find(key: string, address: boolean): number | undefined {
    const slot = this.slotOf(key, hashOf(key), address);
    const value = this.slots[slot]!;
    return value === 0 ? undefined : value > 0 ? value - 1 : value;
  }

  /** Records a cell not seen yet (see find) with its number in its pool. */
  add(key: string, address: boolean, number: number): void {
    if ((this.used + 1) * 2 > this.slots.length) this.grow();
    const hash = hashOf(key);
    const slot = this.slotOf(key, hash, address);
    this.hashes[slot] = hash;
    this.slots[slot] = address ? number + 1 : -number - 1;
    this.used += 1;
  }

  private slotOf(key: string, hash: number, address: boolean): number {
    const mask = this.slots.length - 1;
    for (let slot = hash & mask; ; slot = (slot + 1) & mask) {
      const value = this.slots[slot]!;
      if (value === 0) return slot;
      if (this.hashes[slot] !== hash || value > 0 !== address) continue;
      if (value > 0 ? this.addresses.equals(value - 1, key) : this.others.equals(-value - 1, key))
        return slot;
    }
  }

  private grow(): void {
    const hashes = this.hashes;
    const slots = this.slots;
    this.hashes = new Int32Array(hashes.length * 2);
    this.slots = new Int32Array(slots.length * 2);
    const mask = this.slots.length - 1;
    for (let i = 0; i < slots.length; i++) {
      if (slots[i] === 0) continue;
      let slot = hashes[i]! & mask;
      while (this.slots[slot] !== 0) slot = (slot + 1) & mask;
      this.hashes[slot] = hashes[i]!;
      this.slots[slot] = slots[i]!;
    }
  }
}

/** 32-bit FNV-1a over the UTF-16 code units, with a final mix so that the low bits (the slot) vary. */
function hashOf(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  return h ^ (h >>> 16);
}
