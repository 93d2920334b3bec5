/** What the readers accept: a Node stream, a web ReadableStream, or any async iterable of bytes. */
export type ByteSource = NodeJS.ReadableStream | AsyncIterable<Uint8Array | string>;

/** Pieces handed to parsers stay small so that one step of work (and what it allocates) stays small. */
const PIECE_BYTES = 64 * 1024;

/** Normalises a source to Uint8Array pieces of at most PIECE_BYTES, without copying. */
export async function* bytePieces(source: ByteSource): AsyncGenerator<Uint8Array> {
  for await (const chunk of source as AsyncIterable<Uint8Array | string>) {
    const bytes = typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : chunk;
    for (let start = 0; start < bytes.byteLength; start += PIECE_BYTES) {
      yield bytes.subarray(start, Math.min(start + PIECE_BYTES, bytes.byteLength));
    }
  }
}
