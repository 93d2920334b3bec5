// What the TypeScript tests use of bundle.mjs, typed; bundle.mjs stays plain JavaScript, run by build.mjs.

/** The packages each app's bundle leaves to Node.js to load (a trailing /* names a package's files). */
export declare const BUNDLE_EXTERNALS: readonly string[];

/** The apps that run as processes: their names and entries, relative to a build's directory. */
export declare const BUNDLED_APPS: readonly { name: string; entry: string }[];

/** Every bundled entry (the apps' and the admin CLI's), relative to a build's directory. */
export declare const BUNDLED_ENTRIES: readonly string[];

/** Bundles every app's main.js and the admin CLI's in `out` (a build of build.mjs) in place. */
export function bundleApps(out: string): Promise<void>;
