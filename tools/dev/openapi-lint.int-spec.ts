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

  it("fails when the typed client's committed types are not what the document generates", () => {
    // eslint-disable-next-line @typescript-eslint/no-explicit-any -- an OpenAPI document is edited field by field
    const doc = JSON.parse(readFileSync(path.join(root, 'docs/openapi.json'), 'utf8')) as any;
    const check = (document: string) =>
      spawnSync(
        process.execPath,
        ['tools/dev/client-types.mjs', '--check', `${document}=libs/client/src/generated/openapi.ts`],
        { cwd: root, encoding: 'utf8', env: quiet },
      );
    const same = path.join(work, 'same.json');
    writeFileSync(same, JSON.stringify(doc));
    expect(check(same).status, check(same).stderr).toBe(0);
    // A reply field renamed in the document but not in the committed types.
    const credits = doc.components.schemas.CreditAccount;
    credits.properties.balance = credits.properties.credits_balance;
    delete credits.properties.credits_balance;
    credits.required = credits.required.map((name: string) =>
      name === 'credits_balance' ? 'balance' : name,
    );
    const renamed = path.join(work, 'renamed.json');
    writeFileSync(renamed, JSON.stringify(doc));
    const result = check(renamed);
    expect(result.status).toBe(1);
    expect(result.stderr).toContain('libs/client/src/generated/openapi.ts');
  });

  it('extends the recommended rules, and says why for each rule it turns off', () => {
    const lines = readFileSync(path.join(root, 'redocly.yaml'), 'utf8').split('\n');
    expect(lines).toContain('  - recommended');
    const off = lines.flatMap((line, i) => (/^\s+[a-z0-9-]+:\s*off\s*$/.test(line) ? [i] : []));
    expect(off.length).toBeGreaterThan(0);
    for (const i of off) expect(lines[i - 1], lines[i]).toMatch(/^\s+#\s+\S/);
  });
});
