import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { desktopArgs, systemChromium } from './chromium';

/** @sparticuz/chromium 153's flags, as its `args` gives them (graphics on). */
const LAMBDA_ARGS = [
  '--ash-no-nudges',
  '--disable-domain-reliability',
  '--disable-print-preview',
  '--disk-cache-size=33554432',
  '--no-default-browser-check',
  '--no-pings',
  '--single-process',
  '--font-render-hinting=none',
  '--disable-features=AudioServiceOutOfProcess,IsolateOrigins,site-per-process',
  '--enable-features=SharedArrayBuffer',
  '--ignore-gpu-blocklist',
  '--in-process-gpu',
  '--use-gl=angle',
  '--use-angle=swiftshader',
  '--enable-unsafe-swiftshader',
  '--allow-running-insecure-content',
  '--disable-setuid-sandbox',
  '--disable-site-isolation-trials',
  '--disable-web-security',
  "--headless='shell'",
  '--no-sandbox',
  '--no-zygote',
];

describe('desktopArgs', () => {
  it("keeps the package's harmless flags, drops what would hide a browser's protections and the emulated GPU", () => {
    expect(desktopArgs(LAMBDA_ARGS)).toEqual([
      '--ash-no-nudges',
      '--disable-domain-reliability',
      '--disable-print-preview',
      '--disk-cache-size=33554432',
      '--no-default-browser-check',
      '--no-pings',
      '--font-render-hinting=none',
    ]);
  });
});

describe('systemChromium', () => {
  const dirs: string[] = [];
  afterEach(() => {
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });
  const dir = (...files: string[]): string => {
    const made = mkdtempSync(path.join(tmpdir(), 'system-chromium-'));
    dirs.push(made);
    for (const file of files) {
      writeFileSync(path.join(made, file), '#!/bin/sh\n');
      chmodSync(path.join(made, file), 0o755);
    }
    return made;
  };

  it("finds Debian's chromium, then Ubuntu's chromium-browser, on PATH", () => {
    const debian = dir('chromium');
    const ubuntu = dir('chromium-browser');
    const neither = dir('node');
    expect(systemChromium([neither, ubuntu, debian].join(path.delimiter))).toBe(
      path.join(debian, 'chromium'),
    );
    expect(systemChromium([neither, ubuntu].join(path.delimiter))).toBe(
      path.join(ubuntu, 'chromium-browser'),
    );
  });

  it('finds none when PATH has neither (a directory of that name is not a browser)', () => {
    const decoy = dir();
    mkdirSync(path.join(decoy, 'chromium'));
    expect(systemChromium(['', decoy, dir('node')].join(path.delimiter))).toBeUndefined();
  });
});
