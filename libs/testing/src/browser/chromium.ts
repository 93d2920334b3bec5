import { accessSync, constants, existsSync, readFileSync, statSync } from 'node:fs';
import { mkdir, readdir, rename, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { repoRoot } from '../suite/processes';

/** The Chromium a browser test drives: the machine's own, or the one @sparticuz/chromium ships. */
export interface ChromiumBinary {
  executablePath: string;
  /** Flags beside Playwright's own. */
  args: string[];
  /** Environment beside the test process's own. */
  env: Record<string, string>;
  source: 'system' | 'bundled';
}

/** Debian's and Ubuntu's names for the browser, looked up on PATH in this order. */
const SYSTEM_NAMES = ['chromium', 'chromium-browser'];

/**
 * Flags of @sparticuz/chromium (made for AWS Lambda) that a test on a desktop must not take:
 * - `--single-process`, `--no-zygote`: Lambda's way round its sandbox; here every page keeps its own renderer
 *   process, as in a person's browser.
 * - `--disable-web-security`, `--allow-running-insecure-content`, `--disable-site-isolation-trials`: they switch
 *   off the same-origin policy, mixed-content blocking and site isolation, which the test must see enforced as a
 *   person's browser enforces them.
 * - `--headless=…`, `--no-sandbox`, `--disable-setuid-sandbox`: Playwright chooses these itself.
 * - `--disable-features=…`, `--enable-features=…`: Playwright passes its own lists, and Chromium keeps only the last
 *   of a repeated switch (the package's lists would also turn site isolation off and SharedArrayBuffer on).
 * - `--use-gl=angle`, `--use-angle=swiftshader`, `--in-process-gpu`, `--ignore-gpu-blocklist`,
 *   `--enable-unsafe-swiftshader`: a GPU emulated on the CPU (SwiftShader), for Lambda's WebGL. The console draws
 *   no WebGL; without them headless Chromium composites in software, as it does with the machine's own Chromium,
 *   for far less CPU.
 */
const LAMBDA_ONLY = new Set([
  '--single-process',
  '--no-zygote',
  '--disable-web-security',
  '--allow-running-insecure-content',
  '--disable-site-isolation-trials',
  '--headless',
  '--no-sandbox',
  '--disable-setuid-sandbox',
  '--disable-features',
  '--enable-features',
  '--use-gl',
  '--use-angle',
  '--in-process-gpu',
  '--ignore-gpu-blocklist',
  '--enable-unsafe-swiftshader',
]);

/** @sparticuz/chromium's flags for a headless run on a desktop or CI machine (see LAMBDA_ONLY). */
export function desktopArgs(lambdaArgs: readonly string[]): string[] {
  return lambdaArgs.filter((arg) => !LAMBDA_ONLY.has(arg.split('=', 1)[0]!));
}

/** The machine's Chromium (Debian's `chromium`, Ubuntu's `chromium-browser`) when PATH has one. */
export function systemChromium(pathEnv = process.env.PATH ?? ''): string | undefined {
  for (const name of SYSTEM_NAMES) {
    for (const dir of pathEnv.split(path.delimiter)) {
      if (!dir) continue;
      const candidate = path.join(dir, name);
      try {
        accessSync(candidate, constants.X_OK);
        if (statSync(candidate).isFile()) return candidate;
      } catch {
        // not here, or not a program
      }
    }
  }
  return undefined;
}

let bundled: Promise<ChromiumBinary> | undefined;

/**
 * The Chromium to drive: the machine's own when PATH has one, otherwise the binary @sparticuz/chromium ships
 * (an npm dependency, so a fresh clone needs no download and no manual step), unpacked once per version.
 */
export async function findChromium(): Promise<ChromiumBinary> {
  const system = systemChromium();
  if (system) return { executablePath: system, args: [], env: {}, source: 'system' };
  bundled ??= unpackBundled().catch((err: unknown) => {
    bundled = undefined;
    throw err;
  });
  return bundled;
}

/**
 * Unpacks @sparticuz/chromium's binary, its SwiftShader libraries (beside the binary, where Chromium looks for
 * them) and its fonts into `<tmpdir>/emailverify-chromium-<version>`. The package's own `executablePath()` unpacks
 * into `<tmpdir>/chromium` and takes the file's mere existence as done, so two test files starting together could
 * run a half-written binary; here each process unpacks into a directory of its own and renames it into place
 * (atomic), and a process that loses the race drops its copy.
 */
async function unpackBundled(): Promise<ChromiumBinary> {
  const entry = createRequire(path.join(repoRoot, 'package.json')).resolve('@sparticuz/chromium');
  const packageDir = path.join(path.dirname(entry), '..');
  const { version } = JSON.parse(readFileSync(path.join(packageDir, 'package.json'), 'utf8')) as {
    version: string;
  };
  const { default: lambda, inflate } = await import('@sparticuz/chromium');
  const root = tmpdir();
  const target = path.join(root, `emailverify-chromium-${version}`);
  const executablePath = path.join(target, 'chromium');
  if (!existsSync(executablePath)) {
    await removeAbandonedStaging(root, path.basename(target));
    const staging = `${target}.staging-${process.pid}`;
    await rm(staging, { recursive: true, force: true });
    await mkdir(staging, { recursive: true });
    try {
      // inflate() unpacks into os.tmpdir(), read when it is called: point it at the staging directory for the
      // three calls (synchronous, so nothing else runs with the changed variable).
      const saved = process.env.TMPDIR;
      let unpacking: Promise<string>[];
      process.env.TMPDIR = staging;
      try {
        const bin = path.join(packageDir, 'bin');
        unpacking = ['chromium.br', 'swiftshader.tar.br', 'fonts.tar.br'].map((file) =>
          inflate(path.join(bin, file)),
        );
      } finally {
        if (saved === undefined) delete process.env.TMPDIR;
        else process.env.TMPDIR = saved;
      }
      await Promise.all(unpacking);
      await rename(staging, target).catch((err: NodeJS.ErrnoException) => {
        // Another process put its copy in place first: use that one.
        if (err.code !== 'ENOTEMPTY' && err.code !== 'EEXIST') throw err;
      });
    } finally {
      await rm(staging, { recursive: true, force: true });
    }
  }
  // The package's fonts serve a machine with no fontconfig set-up of its own (a bare container).
  const env: Record<string, string> = existsSync('/etc/fonts/fonts.conf')
    ? {}
    : { FONTCONFIG_PATH: path.join(target, 'fonts') };
  return { executablePath, args: desktopArgs(lambda.args), env, source: 'bundled' };
}

/** Staging directories of processes that died while unpacking (each holds some 270 MB). */
async function removeAbandonedStaging(root: string, base: string): Promise<void> {
  const prefix = `${base}.staging-`;
  for (const name of await readdir(root).catch(() => [] as string[])) {
    if (!name.startsWith(prefix)) continue;
    const pid = Number(name.slice(prefix.length));
    if (Number.isInteger(pid) && pid !== process.pid && isAlive(pid)) continue;
    await rm(path.join(root, name), { recursive: true, force: true });
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}
