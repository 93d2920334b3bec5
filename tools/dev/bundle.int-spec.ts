import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { isBuiltin } from 'node:module';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { BUNDLE_EXTERNALS, BUNDLED_APPS, BUNDLED_ENTRIES } from './bundle.mjs';

const root = process.cwd();

/**
 * Every file an app loads on its way to its configuration check (a LOG_LEVEL it refuses stops it there, once its
 * whole code has loaded), as Node's module hooks see them.
 */
function filesLoaded(app: string): { files: string[]; output: string } {
  const hook = `
    import { registerHooks } from 'node:module';
    const seen = new Set();
    registerHooks({ load(url, context, next) { if (url.startsWith('file:')) seen.add(url); return next(url, context); } });
    process.on('exit', () => process.stderr.write('LOADED ' + JSON.stringify([...seen]) + '\\n'));
  `;
  const run = spawnSync(
    process.execPath,
    ['--import', `data:text/javascript,${encodeURIComponent(hook)}`, `dist/apps/${app}/src/main.js`],
    { cwd: root, encoding: 'utf8', env: { PATH: process.env.PATH, LOG_LEVEL: 'not-a-level' } },
  );
  const output = `${run.stdout}${run.stderr}`;
  const line = /^LOADED (.*)$/m.exec(run.stderr)?.[1];
  return { files: line ? (JSON.parse(line) as string[]) : [], output };
}

describe("each app's entry is one bundled file (tools/dev/bundle.mjs)", () => {
  const apps = BUNDLED_APPS.map((app) => app.name);

  it('covers every app that runs as a process, and the admin CLI', () => {
    expect(apps.sort()).toEqual(['credits', 'file-jobs', 'gateway', 'verifier', 'webhooks']);
    expect(BUNDLED_ENTRIES).toContain(path.join('tools', 'admin', 'main.js'));
  });

  it.each(apps)('%s loads its bundle only, on its way to its configuration check', (app) => {
    const { files, output } = filesLoaded(app);
    expect(output, app).toContain('LOG_LEVEL');
    // Not one module of dist/ or node_modules beside it: no second copy of a package (pg, say) that the bundle
    // holds already, and nothing resolved module by module at start.
    expect(files.map((url) => path.relative(root, new URL(url).pathname))).toEqual([
      `dist/apps/${app}/src/main.js`,
    ]);
  });

  it.each(BUNDLED_ENTRIES)(
    '%s leaves to Node.js only its built-in modules and the named externals',
    (entry) => {
      const bundle = readFileSync(path.join(root, 'dist', entry), 'utf8');
      const required = new Set([...bundle.matchAll(/\brequire\("([^"]+)"\)/g)].map((m) => m[1]!));
      const external = (name: string) =>
        BUNDLE_EXTERNALS.some((pattern) =>
          pattern.endsWith('/*') ? name.startsWith(pattern.slice(0, -1)) : name === pattern,
        );
      expect([...required].filter((name) => !isBuiltin(name) && !external(name))).toEqual([]);
      // A linked source map beside it, for `node --enable-source-maps` or a debugger.
      expect(bundle).toMatch(/\/\/# sourceMappingURL=main\.js\.map\s*$/);
      expect(existsSync(path.join(root, 'dist', `${entry}.map`))).toBe(true);
    },
  );
});
