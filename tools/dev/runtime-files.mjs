// The files the service image runs, gathered from a finished build (tools/dev/build.mjs) into one directory that
// the Dockerfile's runtime stage copies whole: `node tools/dev/runtime-files.mjs <target> [<build>]`, from the
// project's directory (the build defaults to dist/). They are package.json, the bundled entries of the apps and
// the admin CLI with their source maps (tools/dev/bundle.mjs), the web console's static files, and of
// node_modules only the packages the bundles leave to Node.js that are installed (swagger-ui-dist): everything
// else the bundles hold already. Paths stay as in the checkout: `node dist/apps/<app>/src/main.js` runs an app.
import { cpSync, existsSync, mkdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { BUNDLE_EXTERNALS, BUNDLED_ENTRIES } from './bundle.mjs';

/** Gathers the image's files from `build` (a whole build of `project`) into `target`, under dist/ as built. */
export function gatherRuntimeFiles(project, build, target) {
  rmSync(target, { recursive: true, force: true });
  mkdirSync(target, { recursive: true });
  const copy = (from, to) => cpSync(from, path.join(target, to), { recursive: true });
  copy(path.join(project, 'package.json'), 'package.json');
  for (const entry of BUNDLED_ENTRIES) {
    for (const file of [entry, `${entry}.map`]) {
      const from = path.join(build, file);
      if (!existsSync(from))
        throw new Error(`${path.relative(project, from)} is missing: is ${build} a whole build?`);
      copy(from, path.join('dist', file));
    }
  }
  const consoleDir = path.join(build, 'apps', 'console');
  if (!existsSync(path.join(consoleDir, 'index.html'))) throw new Error('the web console was not built');
  copy(consoleDir, path.join('dist', 'apps', 'console'));
  // Packages, not files of a package (a trailing /*); the ones Nest and pg only look for are not installed.
  for (const name of new Set(BUNDLE_EXTERNALS.map((pattern) => pattern.replace(/\/\*$/, '')))) {
    const dir = path.join(project, 'node_modules', name);
    if (existsSync(path.join(dir, 'package.json'))) copy(dir, path.join('node_modules', name));
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) {
  const [target, build = 'dist'] = process.argv.slice(2);
  if (!target) {
    process.stderr.write('usage: node tools/dev/runtime-files.mjs <target> [<build>]\n');
    process.exit(2);
  }
  gatherRuntimeFiles(process.cwd(), path.resolve(build), path.resolve(target));
}
