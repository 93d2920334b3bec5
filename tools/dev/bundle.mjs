// Each app's entry, <dist>/apps/<app>/src/main.js, bundled with esbuild over swc's output (decorator metadata
// stays swc's work) into one file in its place, with a linked source map: an app then starts without resolving,
// reading and compiling about 2,500 modules one by one, which took half of its start-up CPU (docs/performance.md,
// "app bundles"). Paths stay as they were: the Dockerfile, compose, Helm and `npm start` run the same files. The
// admin CLI's entry (<dist>/tools/admin/main.js) is bundled the same way, so the image ships the bundles and no
// installed package but the externals below (tools/dev/runtime-files.mjs). The rest of dist/ stays for the
// migrations tool, which runs it unbundled.
import path from 'node:path';
import { GATEWAY, SERVICES } from './apps.mjs';

/**
 * Left to Node.js to load at run time: packages Nest and pg look for only when a feature asks for them (none is
 * installed), and swagger-ui-dist, whose files the gateway serves from the package's own directory.
 */
export const BUNDLE_EXTERNALS = [
  '@nestjs/microservices',
  '@nestjs/microservices/*',
  '@nestjs/websockets',
  '@nestjs/websockets/*',
  '@fastify/static',
  'pg-native',
  'swagger-ui-dist',
];

/** The apps that run as processes (apps.mjs): their names and entries, relative to a build's directory. */
export const BUNDLED_APPS = [GATEWAY, ...SERVICES].map((app) => ({
  name: app.name,
  entry: path.relative('dist', app.entry),
}));

/**
 * Every bundled entry, relative to a build's directory: the apps', and the admin CLI's, bundled too for the image
 * (runtime-files.mjs).
 */
export const BUNDLED_ENTRIES = [
  ...BUNDLED_APPS.map((app) => app.entry),
  path.join('tools', 'admin', 'main.js'),
];

/** Bundles every app's main.js and the admin CLI's in `out` (a build of tools/dev/build.mjs) in place. */
export async function bundleApps(out) {
  // Imported here: build.mjs imports this file before it installs the dependencies on a fresh clone.
  const esbuild = await import('esbuild');
  // One build for every app: esbuild reads and parses each module once, however many apps it goes into.
  await esbuild.build({
    entryPoints: BUNDLED_ENTRIES.map((entry) => path.join(out, entry)),
    outdir: out,
    outbase: out,
    allowOverwrite: true,
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node24',
    // Nest names providers, TypeORM names migrations, and logs name classes, by their class names.
    keepNames: true,
    // Positions only, mapped through swc's maps to the TypeScript sources; their text stays out (the image
    // ships no sources, and `--enable-source-maps` needs none to name a file and line).
    sourcemap: 'linked',
    sourcesContent: false,
    external: BUNDLE_EXTERNALS,
    // Nest's packages are ES modules, some of which read import.meta.url; in one CommonJS file it is the
    // file's own URL.
    define: { 'import.meta.url': '__bundle_url' },
    banner: { js: "const __bundle_url = require('node:url').pathToFileURL(__filename).href;" },
    logLevel: 'warning',
  });
}
