import { createServer, type Server, type Socket } from 'node:net';
import type { SecureContext } from 'node:tls';
import { closeServer, listen, trackSockets } from '../net-util';
import type { WorldHost, WorldRegistry } from '../world-registry';
import { canonicalName } from '../world-spec';
import { Greylist } from './greylist';
import { SmtpSession } from './smtp-session';

interface Listener {
  server: Server;
  sockets: Set<Socket>;
}

/**
 * One SMTP listener per host address, all on one shared port (the engine dials host-ip:SMTP_PORT).
 * Listeners follow the registry: `sync` binds or closes a host's listener to match its behaviour, and
 * `ready` waits until every pending bind or close is done.
 */
export class SmtpHosts {
  private readonly listeners = new Map<string, Listener>();
  private readonly pending = new Map<string, Promise<void>>();
  private readonly failures: Error[] = [];
  private readonly connectionsByHost = new Map<string, number>();
  private readonly transcriptByHost = new Map<string, string[]>();
  private readonly transcriptAll: string[] = [];
  private connectionsTotal = 0;
  private readonly activeByHost = new Map<string, number>();
  private readonly peakByHost = new Map<string, number>();
  private readonly tlsByHost = new Map<string, number>();
  /** Each greylisting host's memory of triplets, across its sessions. */
  private readonly greylists = new Map<string, Greylist>();

  private constructor(
    private readonly registry: WorldRegistry,
    readonly port: number,
    private readonly anchor: Listener | undefined,
    private readonly tlsContext: SecureContext | undefined,
  ) {}

  /**
   * Without a fixed port, a listener on 127.0.0.1:0 picks the port and keeps holding it for the
   * world's life: host addresses come and go (a 'refused' host must have nothing listening), but while
   * 127.0.0.1:port is held no other world can pick the same number and collide on 127.0.0.x:port.
   * Connections to the anchor itself are closed at once; no host has 127.0.0.1.
   */
  static async start(
    registry: WorldRegistry,
    fixedPort?: number,
    tlsContext?: SecureContext,
  ): Promise<SmtpHosts> {
    if (fixedPort !== undefined) return new SmtpHosts(registry, fixedPort, undefined, tlsContext);
    const anchor: Listener = { server: createServer((socket) => socket.destroy()), sockets: new Set() };
    trackSockets(anchor.server, anchor.sockets);
    const port = await listen(anchor.server, '127.0.0.1', 0);
    return new SmtpHosts(registry, port, anchor, tlsContext);
  }

  /** Brings a host's listener in line with its current behaviour; operations on one address run in order. */
  sync(host: WorldHost): void {
    const previous = this.pending.get(host.ip) ?? Promise.resolve();
    const next = previous.then(() => this.apply(host));
    this.pending.set(
      host.ip,
      next.catch((error: unknown) => {
        this.failures.push(error instanceof Error ? error : new Error(String(error)));
      }),
    );
  }

  async ready(): Promise<void> {
    await Promise.all(this.pending.values());
    if (this.failures.length > 0) {
      throw new AggregateError(
        this.failures,
        `MailWorld: SMTP listeners failed: ${this.failures[0].message}`,
      );
    }
  }

  connections(hostName?: string): number {
    return hostName === undefined
      ? this.connectionsTotal
      : (this.connectionsByHost.get(canonicalName(hostName)) ?? 0);
  }

  transcript(hostName?: string): string[] {
    return [
      ...(hostName === undefined
        ? this.transcriptAll
        : (this.transcriptByHost.get(canonicalName(hostName)) ?? [])),
    ];
  }

  /** The most sessions a host has had open at the same time since the last reset. */
  peakSessions(hostName: string): number {
    return this.peakByHost.get(canonicalName(hostName)) ?? 0;
  }

  /** Sessions of a host that completed a STARTTLS handshake. */
  tlsSessions(hostName: string): number {
    return this.tlsByHost.get(canonicalName(hostName)) ?? 0;
  }

  resetCounters(): void {
    this.peakByHost.clear();
    for (const [name, active] of this.activeByHost) this.peakByHost.set(name, active);
    this.tlsByHost.clear();
    this.connectionsByHost.clear();
    this.transcriptByHost.clear();
    this.transcriptAll.length = 0;
    this.connectionsTotal = 0;
  }

  private greylistOf(name: string, delayMs: number): Greylist {
    let greylist = this.greylists.get(name);
    if (!greylist) {
      greylist = new Greylist(delayMs);
      this.greylists.set(name, greylist);
    }
    return greylist;
  }

  async stop(): Promise<void> {
    await Promise.allSettled(this.pending.values());
    const all = [...this.listeners.values(), ...(this.anchor ? [this.anchor] : [])];
    this.listeners.clear();
    await Promise.all(all.map((l) => closeServer(l.server, l.sockets)));
  }

  private async apply(host: WorldHost): Promise<void> {
    const listener = this.listeners.get(host.ip);
    const shouldListen = typeof host.behaviour === 'object';
    if (shouldListen && !listener) {
      const server = createServer((socket) => {
        this.accept(host.ip, socket);
      });
      const created: Listener = { server, sockets: new Set() };
      trackSockets(server, created.sockets);
      await listen(server, host.ip, this.port);
      this.listeners.set(host.ip, created);
    } else if (!shouldListen && listener) {
      this.listeners.delete(host.ip);
      await closeServer(listener.server, listener.sockets);
    }
  }

  private accept(ip: string, socket: Socket): void {
    const host = this.registry.hostAt(ip);
    if (!host || typeof host.behaviour !== 'object') {
      socket.destroy();
      return;
    }
    const name = host.name;
    this.connectionsTotal++;
    this.connectionsByHost.set(name, (this.connectionsByHost.get(name) ?? 0) + 1);
    const active = (this.activeByHost.get(name) ?? 0) + 1;
    this.activeByHost.set(name, active);
    this.peakByHost.set(name, Math.max(active, this.peakByHost.get(name) ?? 0));
    socket.once('close', () => this.activeByHost.set(name, (this.activeByHost.get(name) ?? 1) - 1));
    new SmtpSession(
      socket,
      name,
      host.behaviour,
      (line) => {
        this.transcriptAll.push(line);
        const lines = this.transcriptByHost.get(name) ?? [];
        lines.push(line);
        this.transcriptByHost.set(name, lines);
      },
      this.tlsContext && {
        context: this.tlsContext,
        onSecure: () => this.tlsByHost.set(name, (this.tlsByHost.get(name) ?? 0) + 1),
      },
      host.behaviour.greylist && this.greylistOf(name, host.behaviour.greylist.delayMs),
    ).start();
  }
}
