import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { baseConfigSchema } from '@emailverify/service-kit';
import { describe, expect, it } from 'vitest';
import { creditsConfigSchema } from '../../apps/credits/src/config';
import { fileJobsConfigSchema } from '../../apps/file-jobs/src/config';
import { gatewayConfigSchema } from '../../apps/gateway/src/config';
import { verifierConfigSchema } from '../../apps/verifier/src/config';
import { webhooksConfigSchema } from '../../apps/webhooks/src/config';

const root = process.cwd();

/** What each app validates at start-up (the admin CLI reads the base settings). */
const SCHEMAS = {
  gateway: gatewayConfigSchema,
  credits: creditsConfigSchema,
  verifier: verifierConfigSchema,
  'file-jobs': fileJobsConfigSchema,
  webhooks: webhooksConfigSchema,
  admin: baseConfigSchema,
};

/**
 * The variables README's configuration table names. A cell may abbreviate names of one family:
 * `RATE_LIMIT_SINGLE`, `_BULK` stands for RATE_LIMIT_BULK.
 */
function readmeVariables(): Set<string> {
  const readme = readFileSync(path.join(root, 'README.md'), 'utf8');
  const section = readme.split(/^## Configuration$/m)[1]?.split(/^## /m)[0] ?? '';
  const names = new Set<string>();
  for (const line of section.split('\n')) {
    if (!line.startsWith('| `')) continue;
    const cell = line.split('|')[1]!;
    let family = '';
    for (const [, name] of cell.matchAll(/`([A-Z_][A-Z0-9_]*)`/g)) {
      if (name!.startsWith('_')) names.add(`${family}${name}`);
      else {
        names.add(name!);
        family = name!.replace(/_[A-Z0-9]+$/, '');
      }
    }
  }
  return names;
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

describe("README's configuration table", () => {
  const listed = readmeVariables();

  it('is found and read', () => {
    expect(listed.has('DATABASE_URL')).toBe(true);
    expect(listed.has('RATE_LIMIT_BULK')).toBe(true);
    expect(listed.size).toBeGreaterThan(40);
  });

  it('lists every variable an app validates at start-up', () => {
    const missing: string[] = [];
    for (const [app, schema] of Object.entries(SCHEMAS))
      for (const name of Object.keys(schema.shape)) if (!listed.has(name)) missing.push(`${name} (${app})`);
    expect(
      missing,
      `read by the apps but not in README's configuration table: ${missing.join(', ')}`,
    ).toEqual([]);
  });

  it('lists every variable the code reads from the environment outside the config schemas', () => {
    const files = ['apps', 'libs', 'tools/admin'].flatMap((dir) => sourceFiles(path.join(root, dir)));
    expect(files.length).toBeGreaterThan(50);
    const missing = new Set<string>();
    for (const file of files) {
      const text = readFileSync(file, 'utf8');
      for (const m of text.matchAll(/\benv\s*(?:\.\s*|\[\s*['"`])([A-Z][A-Z0-9_]+)/g))
        if (!listed.has(m[1]!) && m[1] !== 'NODE_ENV') missing.add(`${m[1]} (${path.relative(root, file)})`);
    }
    expect([...missing], `read from the environment but not in README: ${[...missing].join(', ')}`).toEqual(
      [],
    );
  });
});
