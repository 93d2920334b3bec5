import { createHash } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { closeServer, listen, trackSockets } from '../net-util';
import type { WorldRegistry } from '../world-registry';

/** A 1x1 transparent PNG: the body of a gravatar hit. */
const PIXEL = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==',
  'base64',
);

export type HttpService = 'gravatar' | 'rdap';

/**
 * Gravatar and RDAP stand-ins on one `node:http` server at 127.0.0.1, under /avatar and /rdap.
 * Gravatar answers as the real one does: 404 for an unknown hash only when asked `d=404`, otherwise a
 * default image, so an engine that forgets `d=404` sees every address as having an avatar.
 */
export class HttpStandIns {
  private readonly gravatarHashes = new Set<string>();
  private readonly requestCounts = new Map<HttpService, number>();
  private readonly sockets = new Set<Socket>();
  private down = false;

  private constructor(
    private readonly server: Server,
    readonly port: number,
  ) {}

  static async start(registry: WorldRegistry): Promise<HttpStandIns> {
    const server = createServer();
    const port = await listen(server, '127.0.0.1', 0);
    const standIns = new HttpStandIns(server, port);
    trackSockets(server, standIns.sockets);
    server.on('request', (req: IncomingMessage, res: ServerResponse) => {
      standIns.handle(registry, req, res);
    });
    return standIns;
  }

  get gravatarBaseUrl(): string {
    return `http://127.0.0.1:${this.port}/avatar`;
  }

  get rdapBaseUrl(): string {
    return `http://127.0.0.1:${this.port}/rdap`;
  }

  /** Registers both hash forms Gravatar accepts: MD5 and SHA-256 of the trimmed, lowercased address. */
  registerGravatar(email: string): void {
    const normalised = email.trim().toLowerCase();
    this.gravatarHashes.add(createHash('md5').update(normalised).digest('hex'));
    this.gravatarHashes.add(createHash('sha256').update(normalised).digest('hex'));
  }

  setDown(down: boolean): void {
    this.down = down;
  }

  requests(service?: HttpService): number {
    if (service) return this.requestCounts.get(service) ?? 0;
    return [...this.requestCounts.values()].reduce((sum, n) => sum + n, 0);
  }

  resetCounters(): void {
    this.requestCounts.clear();
  }

  stop(): Promise<void> {
    return closeServer(this.server, this.sockets);
  }

  private handle(registry: WorldRegistry, req: IncomingMessage, res: ServerResponse): void {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const gravatar = /^\/avatar\/([0-9a-fA-F]{32}|[0-9a-fA-F]{64})$/.exec(url.pathname);
    const rdap = /^\/rdap\/domain\/([^/]+)$/.exec(url.pathname);
    const service: HttpService | undefined = gravatar ? 'gravatar' : rdap ? 'rdap' : undefined;
    if (service) this.requestCounts.set(service, (this.requestCounts.get(service) ?? 0) + 1);

    if (req.method !== 'GET' && req.method !== 'HEAD') {
      send(res, 405, 'text/plain', 'method not allowed');
      return;
    }
    if (this.down && service) {
      send(res, 503, 'text/plain', 'service unavailable');
      return;
    }
    if (gravatar) {
      this.avatar(res, gravatar[1].toLowerCase(), url.searchParams.get('d'));
      return;
    }
    if (rdap) {
      domainRecord(registry, res, decodeURIComponent(rdap[1]));
      return;
    }
    send(res, 404, 'text/plain', 'not found');
  }

  private avatar(res: ServerResponse, hash: string, fallback: string | null): void {
    if (this.gravatarHashes.has(hash) || fallback !== '404') {
      send(res, 200, 'image/png', PIXEL);
      return;
    }
    send(res, 404, 'text/plain', 'not found');
  }
}

/** RFC 9083 domain object with a registration event, or an RFC 9083 error object. */
function domainRecord(registry: WorldRegistry, res: ServerResponse, domain: string): void {
  const createdAt = registry.getDomain(domain)?.createdAt;
  if (!createdAt) {
    send(res, 404, 'application/rdap+json', JSON.stringify({ errorCode: 404, title: 'Not Found' }));
    return;
  }
  const body = {
    objectClassName: 'domain',
    rdapConformance: ['rdap_level_0'],
    ldhName: domain.toLowerCase().replace(/\.$/, ''),
    events: [
      { eventAction: 'registration', eventDate: createdAt.toISOString() },
      { eventAction: 'last update of RDAP database', eventDate: new Date().toISOString() },
    ],
  };
  send(res, 200, 'application/rdap+json', JSON.stringify(body));
}

function send(res: ServerResponse, status: number, contentType: string, body: string | Buffer): void {
  res.writeHead(status, { 'content-type': contentType, 'content-length': Buffer.byteLength(body) });
  res.end(body);
}
