// Compiles every app, lib and tool to dist/ (CommonJS, decorators with metadata, path aliases rewritten), or to
// the directory given as the first argument (a private build that leaves dist/ alone, e.g. for `npm run migrate`).
// First it writes the typed client's types (libs/client/src/generated/, not committed) from the committed OpenAPI
// documents when missing or out of date (tools/dev/client-types.mjs): swc and Vite only strip types, but the
// type-checker, ESLint's typed rules and an editor read them.
// The web console (apps/console) is built beside it by Vite into <dist>/apps/console, which the gateway serves;
// that build prints the console's first-load JavaScript size and fails above its limit.
// Then each app's entry (<dist>/apps/<app>/src/main.js) is bundled in place into one file (tools/dev/bundle.mjs).
// `--compile-only` (after the directory) stops at swc: for a build whose modules are loaded one by one, not run as
// apps (`npm run migrate`).
// A finished whole build leaves the digest of the sources it was made from in <dist>/.build-inputs (taken before
// it began): `npm start` copies such a dist/ instead of building the same sources again (lib.mjs privateBuild).
import { spawn } from 'node:child_process';
import { rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { bundleApps } from './bundle.mjs';
import { clientTypes } from './client-types.mjs';
import { BUILD_INPUTS_FILE, buildInputsDigest, ensureDependencies, ensureNode, root } from './lib.mjs';

await ensureNode();
await ensureDependencies();
await clientTypes();
const out = path.resolve(root, process.argv[2] ?? 'dist');
const compileOnly = process.argv[3] === '--compile-only';
rmSync(out, { recursive: true, force: true });
const inputs = buildInputsDigest();

/** Runs a Node.js script of node_modules to its end: its exit code. */
function run(script, args) {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [path.join(root, 'node_modules', script), ...args], {
      cwd: root,
      stdio: 'inherit',
    });
    child.once('error', (err) => {
      process.stderr.write(`${script}: ${err.message}\n`);
      resolve(1);
    });
    child.once('exit', (code) => resolve(code ?? 1));
  });
}

const compiled = run(path.join('.bin', 'swc'), [
  'apps',
  'libs',
  'tools',
  '-d',
  out,
  '--copy-files',
  '--ignore',
  '**/*.spec.ts,**/*.int-spec.ts,**/*.mjs,**/project.json,apps/console/**',
  '--quiet',
]).then(async (code) => {
  if (code !== 0 || compileOnly) return code;
  try {
    await bundleApps(out);
    return 0;
  } catch (err) {
    // esbuild has printed what it could not bundle.
    process.stderr.write(`bundling the apps failed: ${err.message}\n`);
    return 1;
  }
});
const codes = await Promise.all([
  compiled,
  compileOnly
    ? 0
    : run(path.join('vite', 'bin', 'vite.js'), [
        'build',
        '--config',
        path.join('apps', 'console', 'vite.config.ts'),
        '--outDir',
        path.join(out, 'apps', 'console'),
      ]),
]);
const failed = codes.find((code) => code !== 0);
if (failed === undefined && !compileOnly) writeFileSync(path.join(out, BUILD_INPUTS_FILE), `${inputs}\n`);
process.exit(failed ?? 0);
