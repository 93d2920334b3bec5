import { type ChildProcess, spawn } from 'node:child_process';
import { accessSync, constants, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { eventually } from '../eventually';
import { holdPort } from '../suite/processes';

export interface NatsClusterOptions {
  /** How many nats-server processes (default 3). One gives a single server without a cluster block. */
  nodes?: number;
  /** The JetStream cluster's name (default `ev-test`). */
  name?: string;
  /**
   * Further server configuration appended to every node's file, e.g. an `authorization { ... }` block.
   * Environment variables it references (`$NAME`) come from `env`.
   */
  extraConfig?: string;
  /** Environment of the nats-server processes (beside PATH). */
  env?: Record<string, string>;
}

export interface NatsNode {
  /** server_name, `n1`, `n2`, ... */
  readonly name: string;
  /** Client URL of this node alone. */
  readonly url: string;
  readonly port: number;
  readonly clusterPort: number;
  readonly monitorPort: number;
  readonly storeDir: string;
  readonly configFile: string;
}

interface RunningNode extends NatsNode {
  child?: ChildProcess;
  exited?: Promise<void>;
  /** Set by stopNode: its exit is expected. */
  stopped?: boolean;
  output: string[];
}

/** How many times start() picks new ports when one was taken before its nats-server could bind it. */
const START_ATTEMPTS = 3;

/** Where `nats-server` is: the PATH, then the sbin directories Debian's package uses (not on every user's PATH). */
export function findNatsServer(): string {
  const dirs = [
    ...(process.env.PATH ?? '').split(path.delimiter).filter(Boolean),
    '/usr/sbin',
    '/usr/local/sbin',
    '/usr/local/bin',
  ];
  for (const dir of dirs) {
    const candidate = path.join(dir, 'nats-server');
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not here
    }
  }
  throw new Error(
    'nats-server was not found on the PATH (nor in /usr/sbin): install it with "apt-get install nats-server" (Debian) or put the binary on the PATH',
  );
}

/**
 * A JetStream cluster of real `nats-server` processes on loopback, each with its own store under one temp
 * directory, routes between all of them on free ports, and monitoring on a free port. Nodes can be stopped
 * and started again (same ports, same store), so tests can take one away while work is in flight.
 */
export class NatsCluster {
  private constructor(
    private readonly binary: string,
    private readonly dir: string,
    private readonly nodeList: RunningNode[],
    private readonly env: Record<string, string>,
  ) {}

  static async start(options: NatsClusterOptions = {}): Promise<NatsCluster> {
    const count = options.nodes ?? 3;
    if (!Number.isInteger(count) || count < 1)
      throw new Error(`NatsCluster: nodes must be 1 or more (got ${count})`);
    // A port picked here can still be taken by another process before nats-server binds it: then the cluster is
    // started again on other ports.
    for (let attempt = 1; ; attempt++) {
      try {
        return await NatsCluster.startOnce(count, options);
      } catch (err) {
        if (attempt === START_ATTEMPTS || !/address already in use/.test(String(err))) throw err;
      }
    }
  }

  private static async startOnce(count: number, options: NatsClusterOptions): Promise<NatsCluster> {
    const binary = findNatsServer();
    const dir = mkdtempSync(path.join(os.tmpdir(), 'ev-nats-cluster-'));
    const nodes: RunningNode[] = [];
    const cluster = new NatsCluster(binary, dir, nodes, options.env ?? {});
    // Every port picked stays bound here until the nodes start, so no two of them are the same.
    const held: Array<{ port: number; release: () => Promise<void> }> = [];
    const releaseHeld = () => Promise.all(held.splice(0).map((hold) => hold.release()));
    const pick = async () => {
      const hold = await holdPort();
      held.push(hold);
      return hold.port;
    };
    try {
      for (let i = 1; i <= count; i++) {
        const port = await pick();
        const clusterPort = await pick();
        const monitorPort = await pick();
        nodes.push({
          name: `n${i}`,
          url: `nats://127.0.0.1:${port}`,
          port,
          clusterPort,
          monitorPort,
          storeDir: path.join(dir, `n${i}`, 'jetstream'),
          configFile: path.join(dir, `n${i}.conf`),
          output: [],
        });
      }
      const clusterName = options.name ?? 'ev-test';
      for (const node of nodes) {
        const lines = [
          `server_name: ${node.name}`,
          `listen: "127.0.0.1:${node.port}"`,
          `http: "127.0.0.1:${node.monitorPort}"`,
          `jetstream { store_dir: ${JSON.stringify(node.storeDir)} }`,
        ];
        if (count > 1) {
          lines.push(
            'cluster {',
            `  name: ${clusterName}`,
            `  listen: "127.0.0.1:${node.clusterPort}"`,
            `  routes: [${nodes.map((n) => `"nats-route://127.0.0.1:${n.clusterPort}"`).join(', ')}]`,
            '}',
          );
        }
        if (options.extraConfig) lines.push(options.extraConfig);
        writeFileSync(node.configFile, `${lines.join('\n')}\n`);
      }
      await releaseHeld();
      for (let i = 0; i < nodes.length; i++) cluster.spawnNode(i);
      await cluster.waitUntilReady();
      return cluster;
    } catch (err) {
      await releaseHeld();
      await cluster.stop();
      throw err;
    }
  }

  /** Every node's client URL, comma-separated (what NATS_URL takes). */
  get url(): string {
    return this.nodeList.map((n) => n.url).join(',');
  }

  get nodes(): readonly NatsNode[] {
    return this.nodeList;
  }

  /** The node with this server name (`n1`, ...). */
  node(name: string): NatsNode {
    const node = this.nodeList.find((n) => n.name === name);
    if (!node) throw new Error(`NatsCluster: no node ${name}`);
    return node;
  }

  isRunning(index: number): boolean {
    const child = this.nodeList[index]?.child;
    return !!child && child.exitCode === null && child.signalCode === null;
  }

  /** What a node printed (its log), for failure messages and log assertions. */
  output(index: number): string {
    return this.nodeList[index].output.join('');
  }

  /** Stops one node: SIGTERM for an orderly shutdown (lame duck skipped), SIGKILL for a crash. */
  async stopNode(index: number, signal: NodeJS.Signals = 'SIGKILL'): Promise<void> {
    const node = this.nodeList[index];
    if (!node?.child || !this.isRunning(index)) return;
    node.stopped = true;
    node.child.kill(signal);
    const timer = setTimeout(() => node.child?.kill('SIGKILL'), 15_000);
    await node.exited;
    clearTimeout(timer);
  }

  /** Starts a stopped node again with its ports and store, and waits until the cluster is whole. */
  async startNode(index: number): Promise<void> {
    if (this.isRunning(index)) return;
    this.spawnNode(index);
    await this.waitUntilReady();
  }

  /**
   * Waits until every running node answers its health check and, on a cluster, JetStream has a meta leader
   * that sees all the running nodes.
   */
  async waitUntilReady(timeoutMs = 60_000): Promise<void> {
    const running = this.nodeList.filter((_, i) => this.isRunning(i));
    const exited = () => this.nodeList.findIndex((n, i) => n.child && !n.stopped && !this.isRunning(i));
    await eventually(
      async () => {
        // A node that died is reported at once (below), not waited for.
        if (exited() >= 0) return;
        const missing = await this.readiness(running);
        if (missing) throw new Error(missing);
      },
      { timeoutMs, intervalMs: 200 },
    ).catch((err: unknown) => {
      throw new Error(`NatsCluster was not ready (${err instanceof Error ? err.message : String(err)})`);
    });
    const dead = exited();
    if (dead >= 0) {
      const node = this.nodeList[dead];
      throw new Error(
        `nats-server ${node.name} exited (${node.child?.exitCode ?? node.child?.signalCode}):\n${this.output(dead).slice(-4000)}`,
      );
    }
  }

  /** Stops every node and removes the stores. */
  async stop(): Promise<void> {
    await Promise.all(this.nodeList.map((_, i) => this.stopNode(i, 'SIGTERM')));
    rmSync(this.dir, { recursive: true, force: true });
  }

  private spawnNode(index: number): void {
    const node = this.nodeList[index];
    node.output.length = 0;
    node.stopped = false;
    const child = spawn(this.binary, ['-c', node.configFile], {
      env: { PATH: process.env.PATH, ...this.env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const keep = (chunk: Buffer) => {
      node.output.push(chunk.toString());
      if (node.output.length > 2000) node.output.splice(0, node.output.length - 2000);
    };
    child.stdout?.on('data', keep);
    child.stderr?.on('data', keep);
    node.child = child;
    node.exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    // A spawn failure (e.g. the binary vanished) surfaces through exitCode and the output.
    child.once('error', (err) => keep(Buffer.from(String(err))));
  }

  /** '' when ready, else what is missing. */
  private async readiness(running: RunningNode[]): Promise<string> {
    for (const node of running) {
      const res = await fetch(`http://127.0.0.1:${node.monitorPort}/healthz`);
      if (!res.ok) return `${node.name} /healthz ${res.status} ${await res.text()}`;
    }
    if (this.nodeList.length === 1) return '';
    // Every running node names the same meta leader, and the leader sees every other running node as current.
    const leaders = new Set<string>();
    let leaderView: Array<{ name: string; current?: boolean; offline?: boolean }> = [];
    for (const node of running) {
      const res = await fetch(`http://127.0.0.1:${node.monitorPort}/jsz`);
      const jsz = (await res.json()) as {
        meta_cluster?: {
          leader?: string;
          replicas?: Array<{ name: string; current?: boolean; offline?: boolean }>;
        };
      };
      const leader = jsz.meta_cluster?.leader;
      if (!leader) return `${node.name} sees no JetStream meta leader`;
      leaders.add(leader);
      if (leader === node.name) leaderView = jsz.meta_cluster?.replicas ?? [];
    }
    if (leaders.size !== 1) return `the nodes disagree on the meta leader (${[...leaders].join(', ')})`;
    const [leader] = leaders;
    if (!running.some((n) => n.name === leader)) return `the meta leader ${leader} is not running`;
    for (const other of running) {
      if (other.name === leader) continue;
      if (!leaderView.some((r) => r.name === other.name && r.current && !r.offline))
        return `the meta leader ${leader} does not see ${other.name} as current`;
    }
    return '';
  }
}
