import { connect, type Socket } from 'node:net';

export interface Reply {
  code: number;
  lines: string[];
}

/**
 * A raw SMTP client for the tests: writes command lines and parses multi-line replies, so that the
 * tests see exactly the bytes an engine would see.
 */
export class SmtpProbe {
  private buffer = '';
  private current: string[] = [];
  private readonly replies: Reply[] = [];
  private readonly waiters: { resolve(reply: Reply): void; reject(error: Error): void }[] = [];
  private ended = false;
  bytesReceived = 0;
  readonly closed: Promise<void>;

  private constructor(readonly socket: Socket) {
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => {
      this.receive(chunk);
    });
    this.closed = new Promise((resolve) => {
      socket.on('close', () => {
        this.ended = true;
        for (const waiter of this.waiters.splice(0)) waiter.reject(new Error('connection closed'));
        resolve();
      });
    });
    socket.on('error', () => undefined);
  }

  /** Connects and resolves once the TCP handshake is done; rejects with the socket error (e.g. ECONNREFUSED). */
  static open(host: string, port: number): Promise<SmtpProbe> {
    return new Promise((resolve, reject) => {
      const socket = connect({ host, port });
      socket.once('error', reject);
      socket.once('connect', () => {
        socket.off('error', reject);
        resolve(new SmtpProbe(socket));
      });
    });
  }

  /** Next complete reply from the server, in order. */
  reply(): Promise<Reply> {
    const ready = this.replies.shift();
    if (ready) return Promise.resolve(ready);
    if (this.ended) return Promise.reject(new Error('connection closed'));
    return new Promise((resolve, reject) => this.waiters.push({ resolve, reject }));
  }

  write(...lines: string[]): void {
    this.socket.write(lines.map((line) => `${line}\r\n`).join(''));
  }

  async command(line: string): Promise<Reply> {
    this.write(line);
    return this.reply();
  }

  /** Resolves with true when the socket stays idle for `ms` (the client-side timeout an engine would use). */
  idleFor(ms: number): Promise<boolean> {
    return new Promise((resolve) => {
      this.socket.setTimeout(ms, () => {
        this.socket.setTimeout(0);
        resolve(true);
      });
    });
  }

  close(): void {
    this.socket.destroy();
  }

  private receive(chunk: string): void {
    this.bytesReceived += Buffer.byteLength(chunk);
    this.buffer += chunk;
    let newline: number;
    while ((newline = this.buffer.indexOf('\r\n')) >= 0) {
      const line = this.buffer.slice(0, newline);
      this.buffer = this.buffer.slice(newline + 2);
      this.current.push(line.slice(4));
      if (line[3] === '-') continue;
      const reply = { code: Number(line.slice(0, 3)), lines: this.current };
      this.current = [];
      const waiter = this.waiters.shift();
      if (waiter) waiter.resolve(reply);
      else this.replies.push(reply);
    }
  }
}
