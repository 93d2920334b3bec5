// What the TypeScript tests use of bundle.mjs, typed; bundle.mjs stays plain JavaScript, run by build.mjs.

/** The packages each app's bundle leaves to Node.js to load (a trailing /* names a package's files). */
export declare const BUNDLE_EXTERNALS: readonly string[];

/** The apps that run as processes: every app with a src/main.ts. */
export function processApps(root: string): string[];

/** Bundles every app's main.js in `out` (a build of build.mjs) in place. */
export function bundleApps(root: string, out: string): Promise<void>;
