import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

// The console's page under its Content-Security-Policy (apps/gateway/src/console/console.ts): scripts and
// styles from its own origin only, so the page itself holds no inline script, style or third-party address.

const html = readFileSync(path.join(__dirname, '..', 'src', 'index.html'), 'utf8');

describe('the console page (apps/console/src/index.html)', () => {
  it('loads its one script from a file, with no inline script', () => {
    const scripts = [...html.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script>/g)];
    expect(scripts).toHaveLength(1);
    expect(scripts[0]![1]).toMatch(/\btype="module"/);
    expect(scripts[0]![1]).toMatch(/\bsrc="[^"]+"/);
    expect(scripts[0]![2]!.trim()).toBe('');
    expect(html).not.toMatch(/\son[a-z]+=/i);
  });

  it('has no inline style and names no other host', () => {
    expect(html).not.toMatch(/<style\b/i);
    expect(html).not.toMatch(/\sstyle=/i);
    expect(html).not.toMatch(/(https?:)?\/\/[a-z0-9.-]+\.[a-z]{2,}/i);
  });
});
