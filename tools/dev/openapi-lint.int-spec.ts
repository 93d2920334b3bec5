import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const root = process.cwd();
const quiet = { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' };

/** Redocly with the project's redocly.yaml on `document`. */
function redocly(document: string) {
  return spawnSync(
    process.execPath,
    [
      path.join(root, 'node_modules/.bin/redocly'),
      'lint',
      '--format=stylish',
      `--config=${path.join(root, 'redocly.yaml')}`,
      document,
    ],
    { cwd: root, encoding: 'utf8', env: quiet },
  );
}

describe('the OpenAPI lint of npm run check', () => {
  const work = mkdtempSync(path.join(tmpdir(), 'ev-openapi-lint-'));
  afterAll(() => rmSync(work, { recursive: true, force: true }));

  it("passes on both documents under Redocly's recommended rules, as the check's own step", () => {
    const result = spawnSync(process.execPath, ['tools/dev/check.mjs', 'openapi'], {
      cwd: root,
      encoding: 'utf8',
      env: quiet,
    });
    expect(result.status, result.stdout + result.stderr).toBe(0);
    expect(result.stdout + result.stderr).toContain('docs/openapi.json: validated');
    expect(result.stdout + result.stderr).toContain('docs/openapi-legacy.json: validated');
    expect(result.stdout + result.stderr).not.toMatch(/\d+ (error|warning)s?\b/);
  });

  it('fails on a document that breaks a recommended rule, naming it', () => {
    // eslint-disable-next-line @typescript-eslint/no-explicit-any -- an OpenAPI document is edited field by field
    const doc = JSON.parse(readFileSync(path.join(root, 'docs/openapi.json'), 'utf8')) as any;
    const [template, item] = Object.entries(doc.paths as Record<string, Record<string, unknown>>)[0]!;
    // A path parameter the operation does not declare.
    doc.paths[`${template.replace(/\/$/, '')}/{undeclared}`] = item;
    const broken = path.join(work, 'openapi.json');
    writeFileSync(broken, JSON.stringify(doc, null, 2));
    const result = redocly(broken);
    expect(result.status).not.toBe(0);
    expect(result.stdout + result.stderr).toContain('path-parameters-defined');
  });

  it('extends the recommended rules, and says why for each rule it turns off', () => {
    const lines = readFileSync(path.join(root, 'redocly.yaml'), 'utf8').split('\n');
    expect(lines).toContain('  - recommended');
    const off = lines.flatMap((line, i) => (/^\s+[a-z0-9-]+:\s*off\s*$/.test(line) ? [i] : []));
    expect(off.length).toBeGreaterThan(0);
    for (const i of off) expect(lines[i - 1], lines[i]).toMatch(/^\s+#\s+\S/);
  });
});

describe("the typed client's types, generated from the documents", () => {
  const work = mkdtempSync(path.join(tmpdir(), 'ev-client-types-'));
  afterAll(() => rmSync(work, { recursive: true, force: true }));

  /** tools/dev/client-types.mjs on `document`, writing its types to `types`. */
  const generate = (document: string, types: string) =>
    spawnSync(process.execPath, ['tools/dev/client-types.mjs', `${document}=${types}`], {
      cwd: root,
      encoding: 'utf8',
    });

  it('writes them where they are missing, follows a changed document, and leaves up-to-date ones alone', () => {
    // eslint-disable-next-line @typescript-eslint/no-explicit-any -- an OpenAPI document is edited field by field
    const doc = JSON.parse(readFileSync(path.join(root, 'docs/openapi.json'), 'utf8')) as any;
    const document = path.join(work, 'openapi.json');
    const types = path.join(work, 'generated', 'openapi.ts');
    writeFileSync(document, JSON.stringify(doc));

    const first = generate(document, types);
    expect(first.status, first.stderr).toBe(0);
    expect(first.stdout).toContain(`generated ${types}`);
    expect(readFileSync(types, 'utf8')).toMatch(/^\s+credits_balance: number;$/m);
    const written = statSync(types).mtimeMs;

    const again = generate(document, types);
    expect(again.status, again.stderr).toBe(0);
    expect(again.stdout).toBe('');
    expect(statSync(types).mtimeMs).toBe(written);

    // A reply field renamed in the document.
    const credits = doc.components.schemas.CreditAccount;
    credits.properties.balance = credits.properties.credits_balance;
    delete credits.properties.credits_balance;
    credits.required = credits.required.map((name: string) =>
      name === 'credits_balance' ? 'balance' : name,
    );
    writeFileSync(document, JSON.stringify(doc));
    const renamed = generate(document, types);
    expect(renamed.status, renamed.stderr).toBe(0);
    expect(renamed.stdout).toContain(`generated ${types}`);
    const text = readFileSync(types, 'utf8');
    expect(text).toMatch(/^\s+balance: number;$/m);
    expect(text).not.toMatch(/^\s+credits_balance: number;$/m);
    // Three runs over the whole document, each a Node.js process of its own: room on a busy machine.
  }, 180_000);

  it("are, after the build of npm test, the committed documents' own in the client's folder", () => {
    for (const [document, types] of [
      ['docs/openapi.json', 'libs/client/src/generated/openapi.ts'],
      ['docs/openapi-legacy.json', 'libs/client/src/generated/openapi-legacy.ts'],
    ] as const) {
      const copy = path.join(work, path.basename(types));
      expect(generate(document, copy).status).toBe(0);
      expect(readFileSync(path.join(root, types), 'utf8'), types).toBe(readFileSync(copy, 'utf8'));
    }
  });
});
