import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BUILD_INPUTS_FILE, buildInputsDigest, copyBuild } from './lib.mjs';

describe("npm start's build is used again only for the same sources (lib.mjs buildInputsDigest)", () => {
  let checkout: string;
  const write = (file: string, content: string) => {
    mkdirSync(path.dirname(path.join(checkout, file)), { recursive: true });
    writeFileSync(path.join(checkout, file), content);
  };

  beforeEach(() => {
    checkout = mkdtempSync(path.join(tmpdir(), 'ev-build-inputs-'));
    write('apps/credits/src/main.ts', 'run();\n');
    write('libs/contracts/src/index.ts', 'export const A = 1;\n');
    write('tools/dev/bundle.mjs', '// bundles\n');
    write('package-lock.json', '{"lockfileVersion":3}\n');
    write('.swcrc', '{}\n');
  });
  afterEach(() => rmSync(checkout, { recursive: true, force: true }));

  it('is the same for the same files', () => {
    expect(buildInputsDigest(checkout)).toBe(buildInputsDigest(checkout));
  });

  it.each([
    ['a source of an app', 'apps/credits/src/main.ts'],
    ['a source of a lib', 'libs/contracts/src/index.ts'],
    ['a build tool', 'tools/dev/bundle.mjs'],
    ['the locked dependency versions', 'package-lock.json'],
    ["swc's settings", '.swcrc'],
  ])('changes with %s', (_what, file) => {
    const before = buildInputsDigest(checkout);
    write(file, 'changed\n');
    expect(buildInputsDigest(checkout)).not.toBe(before);
  });

  it('changes when a source is added or renamed', () => {
    const before = buildInputsDigest(checkout);
    write('libs/contracts/src/extra.ts', 'export const B = 2;\n');
    const added = buildInputsDigest(checkout);
    expect(added).not.toBe(before);
    rmSync(path.join(checkout, 'libs/contracts/src/extra.ts'));
    write('libs/contracts/src/other.ts', 'export const B = 2;\n');
    expect(buildInputsDigest(checkout)).not.toBe(added);
  });

  it('ignores installed packages and the generated client types, which the build does not compile', () => {
    const before = buildInputsDigest(checkout);
    write('apps/console/node_modules/x/index.js', 'x\n');
    write('libs/client/src/generated/openapi.ts', 'export type T = 1;\n');
    expect(buildInputsDigest(checkout)).toBe(before);
  });
});

describe('npm start copies dist/ when it was built from the same sources (lib.mjs copyBuild)', () => {
  let work: string;
  let dist: string;
  let target: string;
  beforeEach(() => {
    work = mkdtempSync(path.join(tmpdir(), 'ev-copy-build-'));
    dist = path.join(work, 'dist');
    target = path.join(work, 'builds', 'build-abc.tmp-1');
    mkdirSync(path.join(dist, 'apps', 'credits', 'src'), { recursive: true });
    writeFileSync(path.join(dist, 'apps', 'credits', 'src', 'main.js'), 'run();\n');
  });
  afterEach(() => rmSync(work, { recursive: true, force: true }));

  it('copies a finished build of the same sources, whole', () => {
    writeFileSync(path.join(dist, BUILD_INPUTS_FILE), 'abc\n');
    expect(copyBuild(dist, target, 'abc')).toBe(true);
    expect(readFileSync(path.join(target, 'apps', 'credits', 'src', 'main.js'), 'utf8')).toBe('run();\n');
    expect(readFileSync(path.join(target, BUILD_INPUTS_FILE), 'utf8')).toBe('abc\n');
  });

  it('leaves a build of other sources, and one that did not finish (no digest written)', () => {
    writeFileSync(path.join(dist, BUILD_INPUTS_FILE), 'other\n');
    expect(copyBuild(dist, target, 'abc')).toBe(false);
    rmSync(path.join(dist, BUILD_INPUTS_FILE));
    expect(copyBuild(dist, target, 'abc')).toBe(false);
    expect(copyBuild(path.join(work, 'missing'), target, 'abc')).toBe(false);
    expect(existsSync(target)).toBe(false);
  });
});
