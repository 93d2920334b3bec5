// The web console: a React single-page app built to static files that the gateway serves at /console.
// `node tools/dev/build.mjs` runs this build (with --outDir <dist>/apps/console) beside the swc one.
import path from 'node:path';
import react from '@vitejs/plugin-react-swc';
import { defineConfig, type Plugin } from 'vite';
import { type ChunkInfo, firstLoadSize, firstLoadVerdict } from './build/first-load';

const repo = path.resolve(__dirname, '../..');

/** Prints the first load's gzipped JavaScript and fails the build above the limit (build/first-load.ts). */
function firstLoadBudget(): Plugin {
  return {
    name: 'console-first-load-budget',
    apply: 'build',
    generateBundle(_options, bundle) {
      const chunks: ChunkInfo[] = [];
      for (const output of Object.values(bundle)) {
        if (output.type === 'chunk') chunks.push(output);
      }
      const { bytes, files } = firstLoadSize(chunks);
      const { ok, line } = firstLoadVerdict(bytes);
      if (!ok) this.error(`${line} (${files.join(', ')})`);
      process.stdout.write(`${line}\n`);
    },
  };
}

export default defineConfig({
  // index.html lives in src/, so apps/console itself holds no index.html: a gateway run from source finds no
  // built console there.
  root: path.join(__dirname, 'src'),
  base: '/console/',
  publicDir: false,
  logLevel: 'warn',
  plugins: [react({}), firstLoadBudget()],
  resolve: {
    alias: {
      '@emailverify/client': path.join(repo, 'libs/client/src/index.ts'),
      '@emailverify/contracts': path.join(repo, 'libs/contracts/src/index.ts'),
      '@emailverify/spreadsheet': path.join(repo, 'libs/spreadsheet/src/index.ts'),
    },
  },
  build: {
    outDir: path.join(repo, 'dist/apps/console'),
    emptyOutDir: true,
    target: 'es2022',
    // Every browser the console supports preloads modules itself.
    modulePreload: { polyfill: false },
    reportCompressedSize: false,
    assetsInlineLimit: 0,
  },
});
