import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { FIRST_LOAD_LIMIT_BYTES, firstLoadChunks, firstLoadSize, firstLoadVerdict } from './first-load';

const chunk = (fileName: string, imports: string[] = [], isEntry = false, code = 'export {};') => ({
  fileName,
  imports,
  isEntry,
  code,
});

describe('console first-load size', () => {
  it('counts the entry and what it imports statically, not the lazy routes', () => {
    const chunks = [
      chunk('assets/index.js', ['assets/react.js'], true),
      chunk('assets/react.js', ['assets/shared.js']),
      chunk('assets/shared.js'),
      chunk('assets/files-page.js', ['assets/shared.js']),
      chunk('assets/chart.js'),
    ];
    expect(firstLoadChunks(chunks).map((c) => c.fileName)).toEqual([
      'assets/index.js',
      'assets/react.js',
      'assets/shared.js',
    ]);
  });

  it('measures the gzipped bytes, so repetitive code counts for little and random bytes in full', () => {
    const repetitive = firstLoadSize([chunk('a.js', [], true, 'x'.repeat(100_000))]);
    expect(repetitive.bytes).toBeLessThan(1_000);
    const random = randomBytes(50_000).toString('base64');
    const dense = firstLoadSize([chunk('a.js', [], true, random)]);
    expect(dense.bytes).toBeGreaterThan(random.length * 0.7);
    expect(dense.files).toEqual(['a.js']);
  });

  it('passes at the limit and fails one byte above it', () => {
    expect(firstLoadVerdict(FIRST_LOAD_LIMIT_BYTES)).toEqual({
      ok: true,
      line: 'console first-load JavaScript: 250.0 KiB gzipped (limit 250.0 KiB)',
    });
    const over = firstLoadVerdict(FIRST_LOAD_LIMIT_BYTES + 1);
    expect(over.ok).toBe(false);
    expect(over.line).toMatch(/over the limit$/);
  });
});
