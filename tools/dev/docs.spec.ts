import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { baseConfigSchema } from '@emailverify/service-kit';
import { sandboxTableRows } from '@emailverify/verification';
import { describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { creditsConfigSchema } from '../../apps/credits/src/config';
import { fileJobsConfigSchema } from '../../apps/file-jobs/src/config';
import { gatewayConfigSchema } from '../../apps/gateway/src/config';
import { verifierConfigSchema } from '../../apps/verifier/src/config';
import { webhooksConfigSchema } from '../../apps/webhooks/src/config';

const root = path.resolve(__dirname, '../..');

/** What each app validates at start-up (the admin CLI reads the base settings). */
const SCHEMAS: Record<string, z.ZodObject> = {
  gateway: gatewayConfigSchema,
  credits: creditsConfigSchema,
  verifier: verifierConfigSchema,
  'file-jobs': fileJobsConfigSchema,
  webhooks: webhooksConfigSchema,
  admin: baseConfigSchema,
};

const CONFIGURATION = 'docs/configuration.md';

interface TableRow {
  names: string[];
  defaults: string[];
  line: string;
}

/**
 * The rows of the configuration table (section "Variables" of docs/configuration.md). A cell may abbreviate
 * names of one family: `RATE_LIMIT_SINGLE`, `_BULK` stands for RATE_LIMIT_BULK. The default cell holds one
 * default per name, comma-separated.
 */
function configurationRows(): TableRow[] {
  const text = readFileSync(path.join(root, CONFIGURATION), 'utf8');
  const section = text.split(/^## Variables$/m)[1]?.split(/^## /m)[0] ?? '';
  const rows: TableRow[] = [];
  for (const line of section.split('\n')) {
    if (!line.startsWith('| `')) continue;
    const [, nameCell = '', defaultCell = ''] = line.split('|');
    const names: string[] = [];
    let family = '';
    for (const [, name] of nameCell.matchAll(/`([A-Z_][A-Z0-9_]*)`/g)) {
      if (name!.startsWith('_')) names.push(`${family}${name}`);
      else {
        names.push(name!);
        family = name!.replace(/_[A-Z0-9]+$/, '');
      }
    }
    rows.push({ names, defaults: splitTopLevel(defaultCell.trim()), line: line.slice(0, 80) });
  }
  return rows;
}

/** Splits `a, b (c, d), e` at the commas outside parentheses and backticks. */
function splitTopLevel(cell: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let quoted = false;
  let current = '';
  for (const char of cell) {
    if (char === '`') quoted = !quoted;
    else if (!quoted && char === '(') depth++;
    else if (!quoted && char === ')') depth--;
    if (char === ',' && depth === 0 && !quoted) {
      parts.push(current.trim());
      current = '';
    } else current += char;
  }
  parts.push(current.trim());
  return parts;
}

/** The default a schema entry declares before any transform, or undefined when it has none. */
function declaredDefault(schema: z.ZodType): unknown {
  let def = (schema as unknown as { def: ZodDef }).def;
  for (;;) {
    if (def.type === 'default')
      return typeof def.defaultValue === 'function' ? def.defaultValue() : def.defaultValue;
    const inner = def.in ?? def.innerType;
    if (!inner) return undefined;
    def = inner.def;
  }
}
interface ZodDef {
  type: string;
  defaultValue?: unknown;
  in?: { def: ZodDef };
  innerType?: { def: ZodDef };
}

/** Source files of the apps, the libraries they run and the admin CLI (tests and the test kit left out). */
function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((entry) => {
    const file = path.join(dir, entry);
    if (statSync(file).isDirectory())
      return entry === 'testing' || entry === 'node_modules' ? [] : sourceFiles(file);
    return file.endsWith('.ts') && !/\.(spec|int-spec|e2e-spec)\.ts$/.test(file) ? [file] : [];
  });
}

/** Variables the code reads from `process.env` outside the config schemas, with the file reading each. */
function readOutsideSchemas(): Map<string, string> {
  const files = ['apps', 'libs', 'tools/admin'].flatMap((dir) => sourceFiles(path.join(root, dir)));
  expect(files.length).toBeGreaterThan(50);
  const read = new Map<string, string>();
  for (const file of files) {
    const text = readFileSync(file, 'utf8');
    for (const m of text.matchAll(/\benv\s*(?:\.\s*|\[\s*['"`])([A-Z][A-Z0-9_]+)/g))
      if (m[1] !== 'NODE_ENV') read.set(m[1]!, path.relative(root, file));
  }
  return read;
}

describe('the configuration table (docs/configuration.md)', () => {
  const rows = configurationRows();
  const listed = new Set(rows.flatMap((row) => row.names));

  it('is found and read', () => {
    expect(listed.has('DATABASE_URL')).toBe(true);
    expect(listed.has('RATE_LIMIT_BULK')).toBe(true);
    expect(listed.size).toBeGreaterThan(40);
  });

  it('lists every variable an app validates at start-up', () => {
    const missing: string[] = [];
    for (const [app, schema] of Object.entries(SCHEMAS))
      for (const name of Object.keys(schema.shape)) if (!listed.has(name)) missing.push(`${name} (${app})`);
    expect(missing, `read by the apps but not in ${CONFIGURATION}: ${missing.join(', ')}`).toEqual([]);
  });

  it('lists every variable the code reads from the environment outside the config schemas', () => {
    const missing = [...readOutsideSchemas()]
      .filter(([name]) => !listed.has(name))
      .map(([name, file]) => `${name} (${file})`);
    expect(missing, `read from the environment but not in ${CONFIGURATION}: ${missing.join(', ')}`).toEqual(
      [],
    );
  });

  it('lists only variables the code reads', () => {
    const read = new Set([
      ...Object.values(SCHEMAS).flatMap((schema) => Object.keys(schema.shape)),
      ...readOutsideSchemas().keys(),
    ]);
    const stale = [...listed].filter((name) => !read.has(name));
    expect(stale, `in ${CONFIGURATION} but read by no app: ${stale.join(', ')}`).toEqual([]);
  });

  it("gives each variable the default its app's schema declares", () => {
    const wrong: string[] = [];
    let checked = 0;
    for (const row of rows) {
      // One default for several names is each one's (`unset`).
      if (row.defaults.length === 1) row.defaults = row.names.map(() => row.defaults[0]!);
      if (row.defaults.length !== row.names.length) {
        // One name with a default per app: `3101 credits, 3102 verifier, ...`.
        if (row.names.length !== 1)
          wrong.push(`${row.line}: ${row.defaults.length} defaults for ${row.names.length} names`);
        for (const part of row.defaults) {
          const m = /^(\S+) ([a-z-]+)$/.exec(part);
          const schema = m ? SCHEMAS[m[2]!] : undefined;
          if (!schema) {
            wrong.push(`${row.line}: "${part}" names no app`);
            continue;
          }
          checked++;
          const declared = declaredDefault(schema.shape[row.names[0]!] as z.ZodType);
          if (String(declared) !== m![1])
            wrong.push(`${row.names[0]} (${m![2]}): table ${m![1]}, schema ${String(declared)}`);
        }
        continue;
      }
      row.names.forEach((name, i) => {
        const cell = row.defaults[i]!;
        const schema = Object.values(SCHEMAS).find((s) => name in s.shape);
        if (!schema) return; // read outside the schemas: no declared default to compare
        const declared = declaredDefault(schema.shape[name] as z.ZodType);
        // A literal default: a number or `code`, before any remark in parentheses.
        const literal = /^(?:`([^`]*)`|(-?\d+(?:\.\d+)?))(?: \(.*\))?$/.exec(cell);
        checked++;
        if (literal && !cell.includes('<')) {
          const value = literal[1] ?? literal[2]!;
          if (String(declared) !== value) wrong.push(`${name}: table ${value}, schema ${String(declared)}`);
        } else if (/^(unset|required)\b/.test(cell)) {
          if (declared !== undefined && declared !== '')
            wrong.push(`${name}: table "${cell}", schema ${String(declared)}`);
        } else checked--; // worked out at start (the host name, the system's DNS servers): said in words
      });
    }
    expect(wrong, `defaults in ${CONFIGURATION} that differ from the code:\n${wrong.join('\n')}`).toEqual([]);
    expect(checked).toBeGreaterThan(40);
  });
});

/** README.md, the manual in docs/ and the benchmarks' how-to. */
const MANUAL = [
  'README.md',
  ...readdirSync(path.join(root, 'docs'))
    .filter((file) => file.endsWith('.md'))
    .map((file) => `docs/${file}`),
  'tools/bench/README.md',
];

/** The text of a Markdown file without its fenced code blocks and inline code, where `[a](b)` is no link. */
function prose(text: string): string {
  return text.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, '').replace(/`[^`\n]*`/g, '');
}

/** GitHub's anchors of a Markdown file's headings: lower case, punctuation dropped, spaces to hyphens. */
function anchors(text: string): Set<string> {
  const seen = new Map<string, number>();
  const result = new Set<string>();
  for (const [, heading] of text
    .replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, '')
    .matchAll(/^#{1,6} +(.+?) *#*$/gm)) {
    const slug = heading!
      .toLowerCase()
      .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/\s/g, '-');
    const n = seen.get(slug) ?? 0;
    seen.set(slug, n + 1);
    result.add(n === 0 ? slug : `${slug}-${n}`);
  }
  return result;
}

/** Every relative link of a Markdown file that does not resolve: a missing file or a missing heading. */
function brokenLinks(file: string, text: string, read = (f: string) => readFileSync(f, 'utf8')): string[] {
  const broken: string[] = [];
  for (const [, target] of prose(text).matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) {
    if (/^[a-z][a-z0-9+.-]*:/i.test(target!)) continue; // https:, mailto:, ...
    const [targetPath = '', anchor] = target!.split('#');
    const resolved =
      targetPath === ''
        ? path.join(root, file)
        : path.resolve(path.dirname(path.join(root, file)), decodeURI(targetPath));
    if (!existsSync(resolved)) {
      broken.push(`${file}: ${target} (no such file)`);
      continue;
    }
    if (anchor !== undefined && resolved.endsWith('.md') && !anchors(read(resolved)).has(decodeURI(anchor)))
      broken.push(`${file}: ${target} (no such heading)`);
  }
  return broken;
}

describe('links of the manual', () => {
  it('covers README.md and the docs', () => {
    expect(MANUAL).toEqual(expect.arrayContaining(['README.md', 'docs/api.md', 'docs/configuration.md']));
  });

  it.each(MANUAL)('%s: every relative link names an existing file and heading', (file) => {
    const text = readFileSync(path.join(root, file), 'utf8');
    expect(brokenLinks(file, text)).toEqual([]);
  });

  it('finds a broken file link, a broken heading and ignores code', () => {
    const text = [
      '# Title',
      '[ok](docs/design.md) [ok](#title) [ok](docs/design.md#design-notes) [web](https://example.com/x)',
      '[gone](docs/no-such-file.md) [bad heading](docs/design.md#no-such-heading) [here](#nowhere)',
      '`[code](not/a/link.md)`',
      '```',
      '[fenced](not/a/link.md)',
      '```',
    ].join('\n');
    expect(
      brokenLinks('README.md', text, (f) => (f.endsWith('README.md') ? text : readFileSync(f, 'utf8'))),
    ).toEqual([
      'README.md: docs/no-such-file.md (no such file)',
      'README.md: docs/design.md#no-such-heading (no such heading)',
      'README.md: #nowhere (no such heading)',
    ]);
  });
});

describe('the notebook kept out of the manual', () => {
  it('README.md stays a landing page of at most 250 lines', () => {
    const lines = readFileSync(path.join(root, 'README.md'), 'utf8').trimEnd().split('\n').length;
    expect(lines, 'README.md is a landing page: move the detail to docs/').toBeLessThanOrEqual(250);
  });

  it.each(MANUAL)('%s has no dated sections (measurements go in the table of docs/benchmarks.md)', (file) => {
    const dated = anchors(readFileSync(path.join(root, file), 'utf8'));
    expect([...dated].filter((heading) => /\d{4}-\d{2}-\d{2}/.test(heading))).toEqual([]);
  });
});

describe('the sandbox trigger table (docs/api.md, "Sandbox")', () => {
  /** The table's rows below the section's heading, each as its trimmed cells. */
  function documentedRows(): string[][] {
    const text = readFileSync(path.join(root, 'docs/api.md'), 'utf8');
    const section = text.split(/^## Sandbox$/m)[1]?.split(/^## /m)[0] ?? '';
    return section
      .split('\n')
      .filter((line) => line.startsWith('| `'))
      .map((line) =>
        line
          .slice(1, -1)
          .split('|')
          .map((cell) => cell.trim()),
      );
  }

  it('shows SANDBOX_TRIGGERS, row by row, as libs/verification answers them', () => {
    expect(documentedRows()).toEqual(sandboxTableRows());
  });
});
