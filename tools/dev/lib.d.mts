// What TypeScript code (the test harness's PrivatePostgres) uses of lib.mjs, typed; lib.mjs stays plain
// JavaScript as it runs before `npm ci`.
import type { ChildProcess } from 'node:child_process';

export interface EmbeddedPostgres {
  /** The directory of the PostgreSQL binaries it runs (a copy outside the checkout where needed). */
  bin: string;
  /** Its data directory (outside the checkout where needed). */
  databaseDir: string;
  /** The system user it runs as (as root), else undefined (this process's user). */
  user: { uid: number; gid: number } | undefined;
  /** Where it runs from, in words. */
  where: string;
}

export function embeddedPostgres(options: {
  databaseDir: string;
  outsideName: string;
}): Promise<EmbeddedPostgres>;

export function initPostgres(server: EmbeddedPostgres): Promise<void>;

export function runPostgres(
  server: EmbeddedPostgres,
  options: {
    port: number;
    flags?: readonly string[];
    onSpawn?: (child: ChildProcess) => void;
    onOutput?: (chunk: Buffer) => void;
  },
): Promise<ChildProcess>;

/** A digest of what a build is made of in `checkout` (default: this checkout): equal digests, equal builds. */
export function buildInputsDigest(checkout?: string): string;

/** The file a finished build leaves in its directory: the digest of the sources it was made from. */
export declare const BUILD_INPUTS_FILE: string;

/** The digest of the sources `dir` was built from, and the stamp's identity; undefined for no finished build. */
export function builtFrom(dir: string): { digest: string; stamp: string } | undefined;

/** Copies the finished build `from` to `to` when it was made from the sources of `digest`: whether it did. */
export function copyBuild(from: string, to: string, digest: string): boolean;
