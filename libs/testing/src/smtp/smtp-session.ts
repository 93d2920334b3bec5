import type { Socket } from 'node:net';
import { StringDecoder } from 'node:string_decoder';
import { setTimeout as sleep } from 'node:timers/promises';
import { TLSSocket, type SecureContext } from 'node:tls';
import type { SmtpHostSpec, SmtpReply } from '../world-spec';
import type { Greylist } from './greylist';

/** Longer lines are refused: RFC 5321 4.5.3.1.4 allows 512 octets for a command line. */
const MAX_LINE = 4096;

/**
 * One scripted ESMTP session. This is a small `net`-based server rather than nodemailer's `smtp-server`
 * because the tests need behaviours that package cannot express: a server that accepts and never speaks,
 * arbitrary greeting codes that keep the session open (554 then 503 until QUIT), a delay before every
 * reply, and holding QUIT to occupy a client's concurrency slot. Commands are answered strictly in order,
 * so pipelined input behaves as on a real server.
 */
export class SmtpSession {
  private buffer = '';
  private discardingLongLine = false;
  private queue: Promise<void> = Promise.resolve();
  private readonly abort = new AbortController();
  private rejected = false;
  private closing = false;
  /** Set by EHLO/HELO: MAIL needs it first. */
  private greeted = false;
  private inTransaction = false;
  private lastRcptAt: number | undefined;
  /** The MAIL FROM address of the transaction under way (greylisting keys on it). */
  private sender = '';
  private unknownRcpts = 0;
  /** The stream commands arrive on and replies leave by: the socket, or TLS over it after STARTTLS. */
  private stream: Socket;
  private decoder = new StringDecoder('utf8');
  private readonly onData = (chunk: Buffer) => {
    this.receive(this.decoder.write(chunk));
  };

  constructor(
    private readonly socket: Socket,
    private readonly hostName: string,
    private readonly spec: SmtpHostSpec,
    private readonly onCommand: (line: string) => void,
    private readonly tls: { context: SecureContext; onSecure: () => void } | undefined,
    /** The host's greylist (with `spec.greylist`), shared by its sessions. */
    private readonly greylist?: Greylist,
  ) {
    this.stream = socket;
  }

  start(): void {
    this.socket.on('error', () => this.socket.destroy());
    this.socket.on('close', () => {
      this.abort.abort();
    });
    this.socket.on('data', this.onData);
    if (this.spec.silent) return;
    this.enqueue(() => this.greet());
  }

  private get secure(): boolean {
    return this.stream !== this.socket;
  }

  private receive(chunk: string): void {
    this.buffer += chunk;
    let newline: number;
    while ((newline = this.buffer.indexOf('\n')) >= 0) {
      const line = this.buffer.slice(0, newline).replace(/\r$/, '');
      this.buffer = this.buffer.slice(newline + 1);
      if (this.discardingLongLine) {
        this.discardingLongLine = false;
        continue;
      }
      this.onCommand(line);
      if (!this.spec.silent) this.enqueue(() => this.handle(line));
      // RFC 3207 4: what the client sent after STARTTLS, before the handshake, is not read.
      if (line.toUpperCase() === 'STARTTLS' && this.spec.starttls && !this.secure) {
        this.buffer = '';
        return;
      }
    }
    if (this.buffer.length > MAX_LINE) {
      this.buffer = '';
      this.discardingLongLine = true;
      if (!this.spec.silent) this.enqueue(() => this.reply(500, '5.5.6 Error: line too long'));
    }
  }

  private enqueue(step: () => Promise<void>): void {
    // A closed socket aborts the pending sleeps; the rejection only ends this session's queue.
    this.queue = this.queue
      .then(() => (this.closing ? undefined : step()))
      .catch(() => {
        this.socket.destroy();
      });
  }

  private async greet(): Promise<void> {
    const banner = this.spec.banner ?? { code: 220, text: `${this.hostName} ESMTP MailWorld` };
    if (banner.code === 421) return this.replyAndClose(banner.code, banner.text);
    this.rejected = banner.code >= 400;
    await this.reply(banner.code, banner.text);
  }

  private async handle(line: string): Promise<void> {
    const verb = line.split(' ', 1)[0].toUpperCase();
    if (verb === 'QUIT') return this.quit();
    // RFC 5321 3.1: after a 5xx/4xx greeting the server answers 503 until the client quits.
    if (this.rejected) return this.reply(503, '5.5.1 Error: bad sequence of commands');
    switch (verb) {
      case 'EHLO':
      case 'HELO':
        return this.hello(verb, line);
      case 'MAIL':
        return this.mail(line);
      case 'RCPT':
        return this.rcpt(line);
      case 'RSET':
        this.inTransaction = false;
        return this.reply(250, '2.0.0 Ok');
      case 'NOOP':
        return this.reply(250, '2.0.0 Ok');
      case 'VRFY':
        return this.reply(252, '2.0.0 Cannot VRFY user, but will accept message and attempt delivery');
      case 'STARTTLS':
        return this.startTls();
      case 'DATA':
      case 'BDAT':
      case 'AUTH':
        return this.reply(502, '5.5.1 Error: command not implemented');
      default:
        return this.reply(500, '5.5.2 Error: command not recognized');
    }
  }

  private async hello(verb: string, line: string): Promise<void> {
    const client = line.slice(verb.length).trim();
    if (!client) return this.reply(501, `5.5.4 Syntax: ${verb} hostname`);
    this.greeted = true;
    this.inTransaction = false;
    if (verb === 'HELO') return this.reply(250, this.hostName);
    const extensions = ['PIPELINING', 'SIZE 10240000', '8BITMIME', 'ENHANCEDSTATUSCODES', 'SMTPUTF8'];
    if (this.spec.starttls && !this.secure) extensions.push('STARTTLS');
    return this.replyLines(250, [`${this.hostName} Hello ${client}`, ...extensions]);
  }

  private async mail(line: string): Promise<void> {
    if (!this.greeted) return this.reply(503, '5.5.1 Error: send HELO/EHLO first');
    if (this.inTransaction) return this.reply(503, '5.5.1 Error: nested MAIL command');
    if (!/^MAIL FROM:\s*<[^>]*>/i.test(line)) return this.reply(501, '5.5.4 Syntax: MAIL FROM:<address>');
    if (this.spec.starttls === 'required' && !this.secure)
      return this.reply(530, '5.7.0 Must issue a STARTTLS command first');
    this.inTransaction = true;
    this.sender = /<([^>]*)>/.exec(line)?.[1] ?? '';
    return this.reply(250, '2.1.0 Ok');
  }

  private async rcpt(line: string): Promise<void> {
    if (!this.inTransaction) return this.reply(503, '5.5.1 Error: need MAIL command');
    const address = /^RCPT TO:\s*<([^>]+)>/i.exec(line)?.[1];
    if (!address || !address.includes('@')) return this.reply(501, '5.1.3 Bad recipient address syntax');
    this.lastRcptAt = Date.now();
    const { code, text } = this.recipientReply(address);
    return this.reply(code, text);
  }

  private recipientReply(address: string): SmtpReply {
    if (this.spec.rcptReply) return this.spec.rcptReply;
    const greylisted = this.greylist?.check(this.socket.remoteAddress ?? '', this.sender, address);
    if (greylisted) return greylisted;
    const localPart = address.slice(0, address.lastIndexOf('@')).toLowerCase();
    const known = (this.spec.mailboxes ?? []).some((m) => m.toLowerCase() === localPart);
    const defer = this.spec.deferUnknown;
    if (!known && defer && this.unknownRcpts++ < defer.times) return defer.reply;
    const exists = this.spec.catchAll || known;
    if (exists) return { code: 250, text: '2.1.5 Ok' };
    return { code: 550, text: `5.1.1 <${address}>: Recipient address rejected: User unknown` };
  }

  private async startTls(): Promise<void> {
    if (!this.spec.starttls || !this.tls || this.secure)
      return this.reply(502, '5.5.1 Error: command not implemented');
    await this.reply(220, '2.0.0 Ready to start TLS');
    if (this.socket.destroyed) return;
    if (this.spec.starttls === 'broken') {
      // The client's ClientHello is answered with plain text: its handshake fails.
      this.socket.removeListener('data', this.onData);
      this.closing = true;
      this.socket.once('data', () => this.socket.end('this is not TLS\r\n'));
      return;
    }
    // Synchronously after the 220 is written, so the client's handshake bytes reach the TLS layer.
    this.socket.removeListener('data', this.onData);
    this.buffer = '';
    this.decoder = new StringDecoder('utf8');
    const secure = new TLSSocket(this.socket, { isServer: true, secureContext: this.tls.context });
    secure.on('error', () => this.socket.destroy());
    secure.on('data', this.onData);
    secure.once('secure', () => this.tls?.onSecure());
    this.stream = secure;
    // RFC 3207 4.2: the session starts over; the client must say EHLO again.
    this.greeted = false;
    this.inTransaction = false;
  }

  private async quit(): Promise<void> {
    const holdMs = this.spec.holdMs ?? 0;
    if (this.lastRcptAt !== undefined && holdMs > 0) {
      const remaining = this.lastRcptAt + holdMs - Date.now();
      if (remaining > 0) await sleep(remaining, undefined, { signal: this.abort.signal });
    }
    return this.replyAndClose(221, '2.0.0 Bye');
  }

  private async replyAndClose(code: number, text: string): Promise<void> {
    await this.reply(code, text);
    this.closing = true;
    this.stream.end();
  }

  private reply(code: number, text: string): Promise<void> {
    return this.replyLines(code, [text]);
  }

  /** Multi-line replies use "code-text" on every line but the last (RFC 5321 4.2.1). */
  private async replyLines(code: number, lines: string[]): Promise<void> {
    if (this.spec.delayMs) await sleep(this.spec.delayMs, undefined, { signal: this.abort.signal });
    if (this.stream.destroyed || this.stream.writableEnded) return;
    const text = lines.map((line, i) => `${code}${i === lines.length - 1 ? ' ' : '-'}${line}\r\n`).join('');
    this.stream.write(text);
  }
}
