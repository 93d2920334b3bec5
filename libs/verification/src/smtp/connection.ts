import type { Duplex } from 'node:stream';
import { ReplyParser, SmtpProtocolError, type SmtpReply } from './reply';

export type SessionFailureKind = 'timeout' | 'closed' | 'protocol';

/** The conversation broke off: no reply in time, the peer hung up, or it spoke something that is not SMTP. */
export class SmtpSessionError extends Error {
  constructor(
    readonly kind: SessionFailureKind,
    message: string,
  ) {
    super(message);
    this.name = 'SmtpSessionError';
  }
}

interface Waiter {
  resolve(reply: SmtpReply): void;
  reject(error: SmtpSessionError): void;
}

/**
 * A strictly sequential SMTP client conversation over any duplex stream: one command, then its reply. Every
 * wait is bounded by the command timeout.
 */
export class SmtpConnection {
  private readonly parser = new ReplyParser();
  private readonly replies: SmtpReply[] = [];
  private waiter: Waiter | undefined;
  private failure: SmtpSessionError | undefined;
  private readonly onSocketData = (chunk: Buffer | string) =>
    this.onData(typeof chunk === 'string' ? Buffer.from(chunk) : chunk);
  private readonly onSocketEnd = () =>
    this.fail(new SmtpSessionError('closed', 'the server closed the connection'));
  private readonly onSocketClose = () =>
    this.fail(new SmtpSessionError('closed', 'the connection was closed'));
  // Without a listener an 'error' event would crash the process; the error ends the session instead.
  private readonly onSocketError = (error: Error) =>
    this.fail(new SmtpSessionError('closed', `connection error: ${error.message}`));

  constructor(
    private readonly socket: Duplex,
    private readonly commandTimeoutMs: number,
  ) {
    socket.on('data', this.onSocketData);
    socket.on('end', this.onSocketEnd);
    socket.on('close', this.onSocketClose);
    socket.on('error', this.onSocketError);
  }

  /** Waits for the next reply (the greeting, or the answer to the last command). */
  readReply(timeoutMs = this.commandTimeoutMs): Promise<SmtpReply> {
    const queued = this.replies.shift();
    if (queued) return Promise.resolve(queued);
    if (this.failure) return Promise.reject(this.failure);
    return new Promise<SmtpReply>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiter = undefined;
        reject(new SmtpSessionError('timeout', `no reply within ${timeoutMs} ms`));
      }, timeoutMs);
      this.waiter = {
        resolve: (reply) => {
          clearTimeout(timer);
          resolve(reply);
        },
        reject: (error) => {
          clearTimeout(timer);
          reject(error);
        },
      };
    });
  }

  /** Sends one command line and waits for its reply. */
  async command(line: string, timeoutMs = this.commandTimeoutMs): Promise<SmtpReply> {
    // A CR or LF inside a command would let the data smuggle a second command (SMTP injection).
    if (/[\r\n]/.test(line)) throw new Error('SMTP command must not contain CR or LF');
    if (this.failure) throw this.failure;
    this.socket.write(`${line}\r\n`);
    return this.readReply(timeoutMs);
  }

  close(): void {
    this.socket.destroy();
  }

  /**
   * Hands the socket over to another protocol layer (TLS after `220` to STARTTLS) and stops reading it. Bytes the
   * server sent after the last reply would be read as if they came over TLS (RFC 3207 5, response injection),
   * so any such bytes fail the session instead.
   */
  detach(): Duplex {
    if (this.failure) throw this.failure;
    if (this.replies.length > 0 || this.parser.buffered) {
      throw new SmtpSessionError('protocol', 'the server sent data after its reply to STARTTLS');
    }
    this.socket.removeListener('data', this.onSocketData);
    this.socket.removeListener('end', this.onSocketEnd);
    this.socket.removeListener('close', this.onSocketClose);
    this.socket.removeListener('error', this.onSocketError);
    this.failure = new SmtpSessionError('closed', 'the connection was handed over to TLS');
    return this.socket;
  }

  private onData(chunk: Buffer): void {
    let completed: SmtpReply[];
    try {
      completed = this.parser.push(chunk);
    } catch (error) {
      const message = error instanceof SmtpProtocolError ? error.message : String(error);
      this.fail(new SmtpSessionError('protocol', message));
      this.socket.destroy();
      return;
    }
    for (const reply of completed) {
      const waiter = this.waiter;
      if (waiter) {
        this.waiter = undefined;
        waiter.resolve(reply);
      } else {
        this.replies.push(reply);
      }
    }
  }

  private fail(error: SmtpSessionError): void {
    if (this.failure) return;
    this.failure = error;
    const waiter = this.waiter;
    this.waiter = undefined;
    waiter?.reject(error);
  }
}
