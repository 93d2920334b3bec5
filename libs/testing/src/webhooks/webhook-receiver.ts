import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createServer, type Server } from 'node:https';
import type { Socket } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { closeServer, isAddressInUse, listen, trackSockets } from '../net-util';
import { issueTestCertificates } from './test-ca';

const HOST = '127.0.0.1';
const HOST_V6 = '::1';
const PORT_ATTEMPTS = 20;
/** A wait for the service under test, not a speed check: generous on a busy two-core machine. */
const DEFAULT_WAIT_MS = 30_000;
/** How many arrived requests a waitFor failure lists. */
const LISTED = 20;

/** One request as it reached the receiver. */
export interface ReceivedRequest {
  method: string;
  /** The request target as sent: path and query string. */
  path: string;
  /** Every header, names lowercased; a header sent more than once has its values joined with ", ". */
  headers: Readonly<Record<string, string>>;
  /** Every header line in the order sent, names lowercased, repeats kept. */
  headerLines: readonly (readonly [name: string, value: string])[];
  /** The body's bytes exactly as received. */
  rawBody: Buffer;
  /** The body as received, decoded as UTF-8. */
  body: string;
  receivedAt: Date;
}

/** A plain answer; `headers` may carry e.g. `Retry-After`. */
export interface WebhookReply {
  status: number;
  headers?: Readonly<Record<string, string>>;
  body?: string | Buffer;
}

/** A redirect (302 unless told) to `redirect`, sent as `Location`. */
export interface WebhookRedirect {
  redirect: string;
  status?: 301 | 302 | 307 | 308;
}

/** Reads the request, then never answers until the receiver stops. */
export interface WebhookHang {
  hang: true;
}

/** A status alone (`410`) is that status with an empty body. */
export type WebhookAnswer = number | WebhookReply | WebhookRedirect | WebhookHang;

/** One answer for every request, or a sequence: each request takes the next answer and the last repeats. */
export type WebhookBehaviour = WebhookAnswer | readonly WebhookAnswer[];

interface PathState {
  answers: readonly WebhookAnswer[];
  served: number;
}

interface Waiter {
  path: string;
  count: number;
  resolve: (requests: ReceivedRequest[]) => void;
  reject: (error: Error) => void;
  timer: NodeJS.Timeout;
}

/**
 * An HTTPS webhook receiver on loopback (127.0.0.1, and ::1 on the same port where the machine has it) with
 * a certificate from a CA made for this receiver. It records every request with its raw body and answers per
 * path as told (default: 200, empty body). Give the service under test `NODE_EXTRA_CA_CERTS=<caFile>`.
 */
export class WebhookReceiver {
  private readonly received: ReceivedRequest[] = [];
  private readonly behaviours = new Map<string, PathState>();
  private readonly waiters = new Set<Waiter>();
  private readonly sockets = new Set<Socket>();
  /** Per path: requests whose answer has not ended (nor their connection closed), now and at most so far. */
  private readonly open = new Map<string, { now: number; peak: number }>();
  private accepted = 0;
  private stopped = false;

  private constructor(
    private readonly servers: readonly Server[],
    readonly port: number,
    /** The test CA's certificate, PEM. */
    readonly caPem: string,
    /** A temporary file holding `caPem`, for NODE_EXTRA_CA_CERTS; removed by stop(). */
    readonly caFile: string,
  ) {}

  static async start(): Promise<WebhookReceiver> {
    const certificates = await issueTestCertificates();
    const dir = await mkdtemp(path.join(tmpdir(), 'emailverify-webhook-ca-'));
    const caFile = path.join(dir, 'ca.pem');
    await writeFile(caFile, certificates.caPem);
    try {
      const options = { cert: certificates.certPem, key: certificates.keyPem };
      const servers = await listenOnLoopback(() => createServer(options));
      const receiver = new WebhookReceiver(servers, portOf(servers[0]), certificates.caPem, caFile);
      for (const server of servers) receiver.serve(server);
      return receiver;
    } catch (error) {
      await rm(dir, { recursive: true, force: true });
      throw error;
    }
  }

  /** TCP connections accepted so far (a TLS handshake need not have followed): 0 means nothing connected. */
  get connections(): number {
    return this.accepted;
  }

  /** Whether ::1 is served too (it is wherever the machine has IPv6 loopback). */
  get ipv6(): boolean {
    return this.servers.length > 1;
  }

  /** `https://127.0.0.1:<port><path>`. */
  url(requestPath = '/'): string {
    return this.urlFor(HOST, requestPath);
  }

  /** The URL of `requestPath` through another name of this receiver: `localhost`, `::1` or `127.0.0.1`. */
  urlFor(host: string, requestPath = '/'): string {
    checkPath(requestPath);
    const authority = host.includes(':') ? `[${host}]` : host;
    return `https://${authority}:${this.port}${requestPath}`;
  }

  /** Sets how `requestPath` answers from the next request on; a new sequence starts from its first answer. */
  respond(requestPath: string, behaviour: WebhookBehaviour): this {
    checkPath(requestPath);
    const answers: readonly WebhookAnswer[] = isSequence(behaviour) ? behaviour : [behaviour];
    if (answers.length === 0) throw new Error(`WebhookReceiver: an empty sequence for ${requestPath}`);
    answers.forEach(checkAnswer);
    this.behaviours.set(requestPath, { answers, served: 0 });
    return this;
  }

  /** The requests received, oldest first; those to `requestPath` (path and query as sent) when given. */
  requests(requestPath?: string): ReceivedRequest[] {
    return this.received.filter((request) => requestPath === undefined || request.path === requestPath);
  }

  /**
   * Resolves with the requests to `requestPath` once at least `count` have arrived (counting those already
   * here); rejects after `timeoutMs`, listing what did arrive.
   */
  waitFor(requestPath: string, count: number, timeoutMs = DEFAULT_WAIT_MS): Promise<ReceivedRequest[]> {
    checkPath(requestPath);
    if (this.stopped) return Promise.reject(new Error('WebhookReceiver: waitFor after stop()'));
    const ready = this.requests(requestPath);
    if (ready.length >= count) return Promise.resolve(ready);
    return new Promise<ReceivedRequest[]>((resolve, reject) => {
      const waiter: Waiter = {
        path: requestPath,
        count,
        resolve,
        reject,
        timer: setTimeout(() => {
          this.waiters.delete(waiter);
          reject(new Error(this.describeShortfall(requestPath, count, timeoutMs)));
        }, timeoutMs),
      };
      this.waiters.add(waiter);
    });
  }

  /**
   * Requests to `requestPath` open at once (arrived, their answer not yet ended and their connection not
   * closed): now, and the most there have been since the start or the last reset().
   */
  concurrency(requestPath: string): { now: number; peak: number } {
    checkPath(requestPath);
    const open = this.open.get(requestPath);
    return { now: open?.now ?? 0, peak: open?.peak ?? 0 };
  }

  /** Forgets the requests received, the connection count, the concurrency peaks and every path's behaviour. */
  reset(): void {
    this.received.length = 0;
    this.behaviours.clear();
    this.accepted = 0;
    for (const open of this.open.values()) open.peak = open.now;
  }

  /** Closes the servers, cutting hanging and idle connections, fails pending waits, removes the CA file. */
  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    for (const waiter of this.waiters) {
      clearTimeout(waiter.timer);
      waiter.reject(new Error(`WebhookReceiver: stopped while waiting for requests to ${waiter.path}`));
    }
    this.waiters.clear();
    await Promise.all(this.servers.map((server) => closeServer(server, this.sockets)));
    await rm(path.dirname(this.caFile), { recursive: true, force: true });
  }

  private serve(server: Server): void {
    trackSockets(server, this.sockets);
    server.on('connection', () => {
      this.accepted++;
    });
    server.on('request', (req: IncomingMessage, res: ServerResponse) => {
      const requestPath = req.url ?? '/';
      const open = this.open.get(requestPath) ?? { now: 0, peak: 0 };
      open.now++;
      open.peak = Math.max(open.peak, open.now);
      this.open.set(requestPath, open);
      // 'close' comes once the answer has ended or the connection went (a client that gave up).
      res.once('close', () => {
        open.now--;
      });
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      // A request whose body never completed is not recorded: the client gave up on it.
      req.on('end', () => {
        this.record(req, Buffer.concat(chunks));
        answer(res, this.nextAnswer(req.url ?? '/'));
      });
    });
  }

  private record(req: IncomingMessage, rawBody: Buffer): void {
    const headerLines: (readonly [string, string])[] = [];
    for (let i = 0; i + 1 < req.rawHeaders.length; i += 2)
      headerLines.push([req.rawHeaders[i].toLowerCase(), req.rawHeaders[i + 1]]);
    const headers: Record<string, string> = {};
    for (const [name, value] of headerLines)
      headers[name] = name in headers ? `${headers[name]}, ${value}` : value;
    this.received.push({
      method: req.method ?? '',
      path: req.url ?? '/',
      headers,
      headerLines,
      rawBody,
      body: rawBody.toString('utf8'),
      receivedAt: new Date(),
    });
    for (const waiter of this.waiters) {
      const arrived = this.requests(waiter.path);
      if (arrived.length < waiter.count) continue;
      clearTimeout(waiter.timer);
      this.waiters.delete(waiter);
      waiter.resolve(arrived);
    }
  }

  private nextAnswer(requestPath: string): WebhookAnswer {
    const state = this.behaviours.get(requestPath);
    if (!state) return 200;
    const next = state.answers[Math.min(state.served, state.answers.length - 1)];
    state.served++;
    return next;
  }

  private describeShortfall(requestPath: string, count: number, timeoutMs: number): string {
    const arrived = this.requests(requestPath).length;
    const all = this.received;
    const listed = all
      .slice(-LISTED)
      .map((r) => `  ${r.receivedAt.toISOString()} ${r.method} ${r.path} (${r.rawBody.length} bytes)`);
    const more = all.length > LISTED ? `  ... and ${all.length - LISTED} earlier\n` : '';
    return (
      `WebhookReceiver: ${arrived} of ${count} requests to ${requestPath} arrived within ${timeoutMs} ms; ` +
      `${this.accepted} connections; ${all.length === 0 ? 'no request at all' : `all requests:\n${more}${listed.join('\n')}`}`
    );
  }
}

function answer(res: ServerResponse, reply: WebhookAnswer): void {
  if (typeof reply === 'number') {
    res.writeHead(reply, { 'content-length': 0 }).end();
  } else if ('hang' in reply) {
    // Left open: stop() destroys the socket.
  } else if ('redirect' in reply) {
    res.writeHead(reply.status ?? 302, { location: reply.redirect, 'content-length': 0 }).end();
  } else {
    const body = reply.body ?? '';
    res.writeHead(reply.status, { ...reply.headers, 'content-length': Buffer.byteLength(body) }).end(body);
  }
}

function isSequence(behaviour: WebhookBehaviour): behaviour is readonly WebhookAnswer[] {
  return Array.isArray(behaviour);
}

function checkAnswer(reply: WebhookAnswer): void {
  if (typeof reply === 'object' && 'hang' in reply) return;
  if (typeof reply === 'object' && 'redirect' in reply && !URL.canParse(reply.redirect))
    throw new Error(`WebhookReceiver: redirect to ${reply.redirect}, which is not an absolute URL`);
  const status = typeof reply === 'number' ? reply : (reply.status ?? 302);
  if (!Number.isInteger(status) || status < 200 || status > 599)
    throw new Error(`WebhookReceiver: ${status} is not a final HTTP status`);
}

function checkPath(requestPath: string): void {
  if (!requestPath.startsWith('/'))
    throw new Error(`WebhookReceiver: a path starts with "/": ${requestPath}`);
}

function portOf(server: Server): number {
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('WebhookReceiver: no TCP address');
  return address.port;
}

/**
 * Listens on 127.0.0.1 at a free port and on ::1 at the same one, so `localhost` works whichever address it
 * resolves to first. Where the machine has no IPv6 loopback, 127.0.0.1 alone.
 */
async function listenOnLoopback(make: () => Server): Promise<Server[]> {
  for (let attempt = 0; ; attempt++) {
    const v4 = make();
    const port = await listen(v4, HOST, 0);
    const v6 = make();
    try {
      await listen(v6, HOST_V6, port);
      return [v4, v6];
    } catch (error) {
      if (!isAddressInUse(error)) return [v4];
      await closeServer(v4, new Set());
      if (attempt >= PORT_ATTEMPTS) throw error;
    }
  }
}
