import { type ChildProcess, spawn } from 'node:child_process';
import { randomInt } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, readlinkSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { eventually } from '../eventually';

export const repoRoot = process.cwd();

/** A free TCP port on loopback (bound and released; the process that gets it binds it right away). */
export async function freePort(): Promise<number> {
  const held = await holdPort();
  await held.release();
  return held.port;
}

/** Where the ports holdPort() picks begin. */
const FIRST_PICKED_PORT = 15_000;

/**
 * The first of the kernel's ephemeral ports (Linux net.ipv4.ip_local_port_range): those it gives a bind to port 0
 * and the local end of every outgoing connection.
 */
function firstEphemeralPort(): number {
  try {
    const low = Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]);
    if (low > 0) return low;
  } catch {
    // Not Linux: the range IANA names, which other systems use.
  }
  return 49_152;
}

/**
 * A free TCP port on loopback (`port`, or one picked when 0), kept bound until `release()`: for a port that must
 * be known long before the process that will listen on it starts, or kept while its process is stopped (other
 * suites running beside this one could be given it meanwhile). A picked port lies below the ephemeral ports: an
 * outgoing connection (of the thousands a busy test makes on loopback) never takes it as its local end in the
 * moment between its release here and its process binding it, or while a restarted server is down.
 */
export async function holdPort(port = 0): Promise<{ port: number; release: () => Promise<void> }> {
  if (port !== 0) return bindPort(port);
  const below = firstEphemeralPort() - 1;
  for (let attempt = 0; below - FIRST_PICKED_PORT > 1_000 && attempt < 50; attempt++) {
    try {
      return await bindPort(FIRST_PICKED_PORT + randomInt(below - FIRST_PICKED_PORT + 1));
    } catch {
      // Taken: another.
    }
  }
  return bindPort(0);
}

function bindPort(port: number): Promise<{ port: number; release: () => Promise<void> }> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      resolve({ port, release: () => new Promise<void>((done) => server.close(() => done())) });
    });
  });
}

/**
 * Whether process `pid` holds the socket listening on TCP `port` (Linux, from /proc); undefined where that cannot
 * be read. Suites running side by side each pick free ports: a port released before its process bound it can go
 * to another suite's process, whose health endpoint then answers in its place.
 */
function listensOn(pid: number, port: number): boolean | undefined {
  if (process.platform !== 'linux') return undefined;
  const hexPort = `:${port.toString(16).toUpperCase().padStart(4, '0')}`;
  const inodes = new Set<string>();
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    let text: string;
    try {
      text = readFileSync(table, 'utf8');
    } catch {
      continue;
    }
    for (const line of text.split('\n').slice(1)) {
      // sl local_address rem_address st ... inode: a listening socket has state 0A.
      const fields = line.trim().split(/\s+/);
      if (fields.length > 9 && fields[1]!.endsWith(hexPort) && fields[3] === '0A') inodes.add(fields[9]!);
    }
  }
  let fds: string[];
  try {
    fds = readdirSync(`/proc/${pid}/fd`);
  } catch (err) {
    // Gone already (its exit not yet seen by this process): it listens on nothing.
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return false;
    return undefined;
  }
  return fds.some((fd) => {
    try {
      const socket = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`));
      return socket !== null && inodes.has(socket[1]!);
    } catch {
      return false;
    }
  });
}

export interface RunningProcess {
  name: string;
  child: ChildProcess;
  /** Everything the process printed, for failure messages. */
  output: string[];
  exited: Promise<number | null>;
}

/** The V8 flags of every app and of the gateway, from their one source (tools/dev/node-flags.json). */
const V8_FLAGS = JSON.parse(readFileSync(path.join(repoRoot, 'tools', 'dev', 'node-flags.json'), 'utf8')) as {
  apps: readonly string[];
  gateway: readonly string[];
};
/** The V8 flags production runs the services with (tools/dev/apps.mjs NODE_FLAGS, the Dockerfile's NODE_OPTIONS). */
export const APP_NODE_FLAGS: readonly string[] = V8_FLAGS.apps;
/** The gateway's (tools/dev/apps.mjs GATEWAY_NODE_FLAGS, its NODE_OPTIONS in compose and Helm). */
export const GATEWAY_NODE_FLAGS: readonly string[] = V8_FLAGS.gateway;

/** Starts a built app (dist/) as a real process, with the V8 flags production runs it with. */
export function launch(
  name: string,
  entry: string,
  env: NodeJS.ProcessEnv,
  nodeFlags: readonly string[] = APP_NODE_FLAGS,
): RunningProcess {
  const file = path.join(repoRoot, entry);
  if (!existsSync(file))
    throw new Error(
      `${entry} is missing: run "npm run build" (npm test does it) before the integration tests`,
    );
  const child = spawn(process.execPath, [...nodeFlags, file], {
    cwd: repoRoot,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const output: string[] = [];
  const keep = (chunk: Buffer) => {
    output.push(chunk.toString());
    if (output.length > 400) output.splice(0, output.length - 400);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { name, child, output, exited };
}

/** Polls `url` until it answers 200; fails with the process output when the process dies or time runs out. */
export async function waitUntilReady(proc: RunningProcess, url: string, timeoutMs = 120_000): Promise<void> {
  const outcome = await eventually(
    async () => {
      if (proc.child.exitCode !== null) return 'exited';
      const res = await fetch(url);
      if (!res.ok) throw new Error(`HTTP ${res.status}`);
      if (listensOn(proc.child.pid!, Number(new URL(url).port)) === false)
        throw new Error('another process answers on its port');
      return 'ready';
    },
    { timeoutMs, intervalMs: 50 },
  ).catch((err: unknown) => {
    const last = err instanceof Error ? err.message : String(err);
    throw new Error(`${proc.name} was not ready at ${url} (${last}):\n${proc.output.join('').slice(-4000)}`);
  });
  if (outcome === 'exited') {
    throw new Error(
      `${proc.name} exited with ${proc.child.exitCode} before it was ready:\n${proc.output.join('').slice(-4000)}`,
    );
  }
}

/** Stops a process: SIGTERM for an orderly stop, SIGKILL for a crash. */
export async function stopProcess(proc: RunningProcess, signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
  if (proc.child.exitCode !== null || proc.child.signalCode !== null) return;
  proc.child.kill(signal);
  const timer = setTimeout(() => proc.child.kill('SIGKILL'), 15_000);
  await proc.exited;
  clearTimeout(timer);
}
