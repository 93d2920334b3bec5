import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BUNDLED_ENTRIES } from '../../tools/dev/bundle.mjs';
import { buildStages, copyContext, dockerignore, parseDockerfile, type StageResult } from './dockerfile';

const repo = process.cwd();

/** The environment of the base image: this machine's, with the Node.js running the tests first on the PATH. */
function baseImageEnv(): NodeJS.ProcessEnv {
  const env = Object.fromEntries(
    Object.entries(process.env).filter(
      ([name]) =>
        !/^(npm_|VITEST|EMAILVERIFY_)/i.test(name) &&
        !['NODE_ENV', 'NODE_OPTIONS', 'NODE', 'INIT_CWD'].includes(name),
    ),
  );
  return { ...env, PATH: `${path.dirname(process.execPath)}${path.delimiter}${process.env.PATH ?? ''}` };
}

/** The repository as a fresh clone has it: files git tracks or would add (not ignored), as they are on disk. */
function repositoryFiles(): string[] {
  return execFileSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], {
    cwd: repo,
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  })
    .split('\0')
    .filter(Boolean);
}

function run(command: string, args: string[], cwd: string, env: NodeJS.ProcessEnv) {
  return new Promise<{ code: number | null; output: string }>((resolve, reject) => {
    const child = spawn(command, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (c: Buffer) => (output += c.toString()));
    child.stderr.on('data', (c: Buffer) => (output += c.toString()));
    child.once('error', reject);
    child.once('exit', (code) => resolve({ code, output }));
  });
}

describe('Dockerfile: its install and build steps, run on a fresh copy of the repository', () => {
  const work = mkdtempSync(path.join(tmpdir(), 'ev-image-'));
  const stages = parseDockerfile(readFileSync(path.join(repo, 'Dockerfile'), 'utf8'));
  const outputs: string[] = [];
  let built: Map<string, StageResult>;
  let runtime: StageResult;
  let runtimeApp: string;

  beforeAll(async () => {
    const context = path.join(work, 'context');
    copyContext(repo, repositoryFiles(), context);
    // npm reads package metadata from its cache where it has it (the Dockerfile's cache mount keeps the same
    // cache between builds); the lock file fixes every version and its integrity either way.
    const env = { ...baseImageEnv(), npm_config_prefer_offline: 'true' };
    built = await buildStages(stages, context, path.join(work, 'stages'), env, (_stage, step, out) => {
      if (step.kind === 'run') outputs.push(out);
    });
    runtime = built.get('runtime')!;
    runtimeApp = path.join(runtime.root, runtime.workdir);
  }, 0);

  afterAll(() => rmSync(work, { recursive: true, force: true }));

  it('has build and runtime stages, both on the Node.js 24 slim image (package.json engines)', () => {
    const engines = (
      JSON.parse(readFileSync(path.join(repo, 'package.json'), 'utf8')) as { engines: { node: string } }
    ).engines.node;
    const major = /^>=(\d+)$/.exec(engines)?.[1];
    expect(major).toBe('24');
    expect(stages.map((s) => s.name)).toEqual(['build', 'runtime']);
    for (const stage of stages) expect(stage.image).toBe(`node:${major}-bookworm-slim`);
  });

  it('installs with npm ci from the lock file without an engine warning, and builds every app', () => {
    const runs = stages.flatMap((s) => s.steps).filter((s) => s.kind === 'run');
    expect(runs.filter((s) => /\bnpm ci\b/.test(s.command))).toHaveLength(1);
    expect(runs.some((s) => /\bnpm (install|i)\b/.test(s.command))).toBe(false);
    expect(outputs.join('\n')).not.toMatch(/EBADENGINE/);
    const build = built.get('build')!;
    const dist = path.join(build.root, build.workdir, 'dist');
    for (const app of readdirSync(path.join(repo, 'apps'))) {
      // The web console is static files (Vite's build), served by the gateway; every other app is a process.
      const entry = app === 'console' ? 'index.html' : path.join('src', 'main.js');
      expect(existsSync(path.join(dist, 'apps', app, entry)), app).toBe(true);
    }
    expect(existsSync(path.join(dist, 'tools', 'admin', 'main.js'))).toBe(true);
  });

  it('npm ls finds the installed tree complete and valid, with no engine warning', async () => {
    const build = built.get('build')!;
    const { code, output } = await run('npm', ['ls', '--all'], path.join(build.root, build.workdir), {
      ...baseImageEnv(),
      npm_config_loglevel: 'warn',
    });
    expect(code, output.slice(-2000)).toBe(0);
    // Packages for other platforms show as UNMET OPTIONAL DEPENDENCY, which is as locked.
    expect(output).not.toMatch(/EBADENGINE|\binvalid\b|UNMET (?!OPTIONAL DEPENDENCY)|\bmissing\b|extraneous/);
    expect(output).toContain('@nestjs/core@');
  });

  it('ships the bundles, their source maps and the console, and of node_modules only what they leave to Node', () => {
    expect(readdirSync(runtimeApp).sort()).toEqual(['dist', 'node_modules', 'package.json']);
    const files = (dir: string): string[] =>
      readdirSync(dir, { recursive: true, withFileTypes: true })
        .filter((entry) => entry.isFile())
        .map((entry) => path.relative(runtimeApp, path.join(entry.parentPath, entry.name)));
    // No module of swc's output beside the bundles: nothing in the image loads one.
    expect(
      files(path.join(runtimeApp, 'dist'))
        .filter((file) => !file.startsWith('dist/apps/console/'))
        .sort(),
    ).toEqual(BUNDLED_ENTRIES.flatMap((entry) => [`dist/${entry}`, `dist/${entry}.map`]).sort());
    // The one external the build installs (the others, Nest's and pg's optional packages, are not installed).
    expect(readdirSync(path.join(runtimeApp, 'node_modules'))).toEqual(['swagger-ui-dist']);
    const { version } = JSON.parse(
      readFileSync(path.join(runtimeApp, 'node_modules', 'swagger-ui-dist', 'package.json'), 'utf8'),
    ) as { version: string };
    const lock = JSON.parse(readFileSync(path.join(repo, 'package-lock.json'), 'utf8')) as {
      packages: Record<string, { version?: string }>;
    };
    expect(version).toBe(lock.packages['node_modules/swagger-ui-dist']?.version);
  });

  it('every app and the admin CLI load all their modules from the runtime stage', async () => {
    const entries = [
      ...readdirSync(path.join(runtimeApp, 'dist', 'apps'))
        .filter((app) => app !== 'console')
        .map((app) => `dist/apps/${app}/src/main.js`),
      'dist/tools/admin/main.js',
    ];
    for (const entry of entries) {
      // A bad LOG_LEVEL stops each one at its configuration check, which runs after every module has loaded (the
      // admin CLI reads its command line first, so it is given a well-formed one).
      const args = entry.startsWith('dist/tools/admin/')
        ? ['list-keys', '--account', '00000000-0000-4000-8000-000000000000']
        : [];
      const { code, output } = await run(process.execPath, [entry, ...args], runtimeApp, {
        ...baseImageEnv(),
        ...runtime.env,
        LOG_LEVEL: 'not-a-level',
      });
      expect(output, entry).not.toMatch(/Cannot find module|MODULE_NOT_FOUND|ERR_REQUIRE/);
      expect(output, entry).toContain('LOG_LEVEL');
      expect(code, entry).not.toBe(0);
    }
  });

  it('ships the web console beside the gateway, where the gateway looks for it', () => {
    const console = path.join(runtimeApp, 'dist', 'apps', 'console');
    expect(readFileSync(path.join(console, 'index.html'), 'utf8')).toMatch(/src="\/console\/assets\//);
    expect(readdirSync(path.join(console, 'assets')).some((file) => file.endsWith('.js'))).toBe(true);
  });

  it('runs as a numeric non-root user, and its health check asks /health/ready on the app port', async () => {
    expect(runtime.user).toMatch(/^[1-9]\d*:[1-9]\d*$/);
    const [program, ...args] = runtime.healthcheck ?? [];
    expect(program).toBe('node');
    let status = 200;
    const paths: string[] = [];
    const server = createServer((req, res) => {
      paths.push(req.url ?? '');
      res.writeHead(status).end();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    try {
      const env = { ...baseImageEnv(), ...runtime.env, HTTP_PORT: String(port) };
      expect((await run(process.execPath, args, runtimeApp, env)).code).toBe(0);
      status = 503;
      expect((await run(process.execPath, args, runtimeApp, env)).code).toBe(1);
      expect(paths).toEqual(['/health/ready', '/health/ready']);
    } finally {
      server.close();
    }
  });

  it('leaves host build output out of the build context (.dockerignore)', () => {
    const ignored = dockerignore(readFileSync(path.join(repo, '.dockerignore'), 'utf8'));
    for (const p of [
      'node_modules/x/index.js',
      'libs/files/node_modules/y',
      'dist/apps/a.js',
      'libs/client/src/generated/openapi.ts',
      '.data/x',
      '.git/HEAD',
    ]) {
      expect(ignored(p), p).toBe(true);
    }
    for (const p of [
      'package.json',
      'package-lock.json',
      'apps/gateway/src/main.ts',
      'tools/dev/build.mjs',
      // The build generates the typed client's types from them.
      'docs/openapi.json',
      'docs/openapi-legacy.json',
    ]) {
      expect(ignored(p), p).toBe(false);
    }
  });
});
