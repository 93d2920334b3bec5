import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
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

  it("passes on docs/openapi.json under Redocly's recommended rules, as the check's own step", () => {
    const result = spawnSync(process.execPath, ['tools/dev/check.mjs', 'openapi'], {
      cwd: root,
      encoding: 'utf8',
      env: quiet,
    });
    expect(result.status, result.stdout + result.stderr).toBe(0);
    expect(result.stdout + result.stderr).toContain('docs/openapi.json: validated');
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
