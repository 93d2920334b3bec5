import { connect, createServer, isIPv4, type Server, type Socket } from 'node:net';
import { closeServer, listen, trackSockets } from '../net-util';

export interface SocksServerOptions {
  /** Required credentials (RFC 1929); without them the server offers "no authentication". */
  user?: string;
  password?: string;
}

/**
 * A SOCKS5 server on loopback (RFC 1928 CONNECT, RFC 1929 user/password) for tests of SMTP egress through a
 * proxy. It counts what it relays and refuses every destination outside 127.0.0.0/8, so nothing leaves the host.
 * No maintained server package exists on npm; this is the few states of the protocol a client test needs.
 */
export class SocksServer {
  private readonly sockets = new Set<Socket>();
  private readonly relayed: string[] = [];
  private refusedAuth = 0;

  private constructor(
    private readonly server: Server,
    readonly port: number,
    private readonly options: SocksServerOptions,
  ) {}

  static async start(options: SocksServerOptions = {}): Promise<SocksServer> {
    const server = createServer();
    const port = await listen(server, '127.0.0.1', 0);
    const instance = new SocksServer(server, port, options);
    trackSockets(server, instance.sockets);
    server.on('connection', (socket: Socket) => instance.accept(socket));
    return instance;
  }

  /** `socks5://user:password@127.0.0.1:port` with the given credentials (the right ones by default). */
  url(user = this.options.user, password = this.options.password): string {
    const auth =
      user === undefined ? '' : `${encodeURIComponent(user)}:${encodeURIComponent(password ?? '')}@`;
    return `socks5://${auth}127.0.0.1:${this.port}`;
  }

  /** Destinations (`ip:port`) of the CONNECT requests relayed, in order. */
  connections(): string[] {
    return [...this.relayed];
  }

  /** Clients turned away for wrong credentials. */
  authFailures(): number {
    return this.refusedAuth;
  }

  resetCounters(): void {
    this.relayed.length = 0;
    this.refusedAuth = 0;
  }

  async stop(): Promise<void> {
    await closeServer(this.server, this.sockets);
  }

  private accept(client: Socket): void {
    client.on('error', () => client.destroy());
    const reader = new ByteReader(client);
    void this.negotiate(client, reader).catch(() => client.destroy());
  }

  private async negotiate(client: Socket, reader: ByteReader): Promise<void> {
    const [version, count] = await reader.take(2);
    if (version !== 5) return void client.destroy();
    const methods = [...(await reader.take(count!))];
    const wantAuth = this.options.user !== undefined;
    const method = wantAuth ? 0x02 : 0x00;
    if (!methods.includes(method)) return void client.end(Buffer.from([5, 0xff]));
    client.write(Buffer.from([5, method]));
    if (wantAuth) {
      const [authVersion, userLength] = await reader.take(2);
      const user = (await reader.take(userLength!)).toString('utf8');
      const [passwordLength] = await reader.take(1);
      const password = (await reader.take(passwordLength!)).toString('utf8');
      const ok =
        authVersion === 1 && user === this.options.user && password === (this.options.password ?? '');
      if (!ok) {
        this.refusedAuth++;
        return void client.end(Buffer.from([1, 1]));
      }
      client.write(Buffer.from([1, 0]));
    }
    const [, command, , addressType] = await reader.take(4);
    let host: string;
    if (addressType === 1) host = [...(await reader.take(4))].join('.');
    else if (addressType === 3) host = (await reader.take((await reader.take(1))[0]!)).toString('utf8');
    else return void client.end(reply(8));
    const port = (await reader.take(2)).readUInt16BE(0);
    if (command !== 1) return void client.end(reply(7));
    // Loopback only: the test world lives there, and nothing else may be reached.
    if (!isIPv4(host) || !host.startsWith('127.')) return void client.end(reply(2));
    const upstream = connect({ host, port });
    upstream.on('error', () => {
      if (!client.writableEnded) client.end(reply(5));
      client.destroy();
    });
    upstream.once('connect', () => {
      this.relayed.push(`${host}:${port}`);
      client.write(reply(0));
      const rest = reader.release();
      if (rest.length > 0) upstream.write(rest);
      client.pipe(upstream);
      upstream.pipe(client);
      client.on('close', () => upstream.destroy());
      upstream.on('close', () => client.destroy());
    });
  }
}

/** A SOCKS5 reply with the given status and a zero bound address. */
function reply(status: number): Buffer {
  return Buffer.from([5, status, 0, 1, 0, 0, 0, 0, 0, 0]);
}

/** Reads exact byte counts from a socket during the handshake, then hands the rest over. */
class ByteReader {
  private buffer = Buffer.alloc(0);
  private waiting: (() => void) | undefined;
  private ended = false;
  private readonly onData = (chunk: Buffer) => {
    this.buffer = Buffer.concat([this.buffer, chunk]);
    this.waiting?.();
  };

  constructor(private readonly socket: Socket) {
    socket.on('data', this.onData);
    socket.once('close', () => {
      this.ended = true;
      this.waiting?.();
    });
  }

  async take(n: number): Promise<Buffer> {
    while (this.buffer.length < n) {
      if (this.ended) throw new Error('client went away');
      await new Promise<void>((resolve) => (this.waiting = resolve));
      this.waiting = undefined;
    }
    const out = this.buffer.subarray(0, n);
    this.buffer = this.buffer.subarray(n);
    return out;
  }

  /** Stops reading; returns what arrived past the handshake. */
  release(): Buffer {
    this.socket.removeListener('data', this.onData);
    this.socket.pause();
    return this.buffer;
  }
}
