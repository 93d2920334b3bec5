import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const root = process.cwd();
const lib = path.join(root, 'tools', 'dev', 'lib.mjs');
const scripts = [
  ...readdirSync(path.join(root, 'tools', 'dev'))
    .filter((f) => f.endsWith('.mjs'))
    .map((f) => `tools/dev/${f}`),
  'tools/bench/run.mjs',
];

/**
 * A script that believes it runs on Node.js 20 (until lib.mjs has started it again), calls ensureNode() and
 * reports where it ended up. `then` is its code after ensureNode().
 */
function probe(dir: string, then: string): string {
  const file = path.join(dir, `probe-${Math.random().toString(36).slice(2)}.mjs`);
  writeFileSync(
    file,
    `import { spawnSync } from 'node:child_process';
if (!process.env.EMAILVERIFY_NODE_REEXEC) Object.defineProperty(process, 'version', { value: 'v20.20.2' });
const { ensureNode, NODE_RELEASE } = await import(${JSON.stringify(pathToFileURL(lib).href)});
await ensureNode();
const onPath = spawnSync('node', ['--version'], { encoding: 'utf8' }).stdout.trim();
const report = { version: process.version, release: NODE_RELEASE, execPath: process.execPath, onPath, npm: process.env.npm_node_execpath };
${then}
`,
  );
  return file;
}

function start(file: string) {
  // As on a machine whose node is older: nothing says the process was started again already.
  const env = { ...process.env };
  delete env.EMAILVERIFY_NODE_REEXEC;
  const child = spawn(process.execPath, [file], { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (c: Buffer) => (output += c.toString()));
  child.stderr.on('data', (c: Buffer) => (output += c.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { child, exited, output: () => output };
}

describe('Node.js 24 for the tool scripts (tools/dev/lib.mjs ensureNode)', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'ev-runtime-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('on an older Node.js, runs the script again on Node.js 24 from the npm registry, first on the PATH', async () => {
    const run = start(
      probe(dir, 'process.stdout.write(`REPORT ${JSON.stringify(report)}\\n`); process.exit(7);'),
    );
    expect(await run.exited).toBe(7);
    const report = JSON.parse(/^REPORT (.*)$/m.exec(run.output())![1]!) as Record<string, string>;
    expect(report.release).toMatch(/^24\./);
    expect(report.version).toBe(`v${report.release}`);
    expect(report.execPath.startsWith(path.join(root, '.data', 'runtime') + path.sep)).toBe(true);
    // What the script runs by name (npm, the .bin shims) finds the same Node.js.
    expect(report.onPath).toBe(`v${report.release}`);
    expect(report.npm).toBe(report.execPath);
    expect(run.output()).toContain(
      `this machine's Node.js is v20.20.2; running on Node.js ${report.release}`,
    );
  });

  it('passes a signal on to the script it started again', async () => {
    const run = start(
      probe(
        dir,
        `process.on('SIGTERM', () => { process.stdout.write('STOPPING\\n'); process.exit(3); });
process.stdout.write('READY\\n');
setInterval(() => {}, 1000);`,
      ),
    );
    await new Promise<void>((resolve, reject) => {
      const timer = setInterval(() => {
        if (run.output().includes('READY')) resolve();
        else if (run.child.exitCode !== null) reject(new Error(run.output()));
        else return;
        clearInterval(timer);
      }, 50);
    });
    run.child.kill('SIGTERM');
    expect(await run.exited).toBe(3);
    expect(run.output()).toContain('STOPPING');
  });

  it('the tool scripts import only Node built-ins and each other before ensureNode() and npm ci have run', () => {
    for (const script of scripts) {
      const source = readFileSync(path.join(root, script), 'utf8');
      const imports = [...source.matchAll(/^import\s(?:[^'"]*?\sfrom\s)?['"]([^'"]+)['"]/gm)].map(
        (m) => m[1]!,
      );
      for (const specifier of imports) {
        expect(
          specifier.startsWith('node:') || /^\.\.?\/.*\.mjs$/.test(specifier),
          `${script}: ${specifier}`,
        ).toBe(true);
      }
      const ensured = source.indexOf('await ensureNode();');
      for (const later of ['await ensureDependencies();', 'await build(', 'spawnSync(', 'spawn(']) {
        const at = source.indexOf(`\n${later}`);
        if (at >= 0)
          expect(ensured >= 0 && ensured < at, `${script}: ensureNode() before ${later}`).toBe(true);
      }
    }
  });
});
