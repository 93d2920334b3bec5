/** One SMTP reply, possibly several lines long (RFC 5321 4.2.1). */
export interface SmtpReply {
  code: number;
  /** Text of each line without the code and separator. */
  lines: string[];
  /** RFC 3463 enhanced status code such as `5.1.1`, when the server sent one. */
  enhanced?: string;
}

export class SmtpProtocolError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SmtpProtocolError';
  }
}

// RFC 5321 allows 512 octets per reply line; servers exceed it in banners, so allow generous slack but stay
// bounded against a peer that never sends a line end.
const MAX_LINE_OCTETS = 8192;
const MAX_REPLY_LINES = 256;
const REPLY_LINE = /^([2-5][0-9][0-9])(?:([ -])(.*))?$/s;
const ENHANCED = /^([245])\.([0-9]{1,3})\.([0-9]{1,3})(?=\s|$)/;

/**
 * Turns a byte stream into replies. Works on bytes so a CRLF or a UTF-8 character split across TCP segments is
 * reassembled before decoding. A bare LF is accepted as a line end, as most clients do.
 */
export class ReplyParser {
  private pending: Buffer = Buffer.alloc(0);
  private lines: string[] = [];

  /** Whether part of a reply has arrived and waits for the rest. */
  get buffered(): boolean {
    return this.pending.length > 0 || this.lines.length > 0;
  }

  /** Feeds received bytes; returns the replies completed by them, in order. Throws SmtpProtocolError. */
  push(chunk: Buffer): SmtpReply[] {
    this.pending = this.pending.length === 0 ? chunk : Buffer.concat([this.pending, chunk]);
    const replies: SmtpReply[] = [];
    let newline = this.pending.indexOf(0x0a);
    while (newline >= 0) {
      const end = newline > 0 && this.pending[newline - 1] === 0x0d ? newline - 1 : newline;
      const line = this.pending.subarray(0, end).toString('utf8');
      this.pending = this.pending.subarray(newline + 1);
      const reply = this.acceptLine(line);
      if (reply) replies.push(reply);
      newline = this.pending.indexOf(0x0a);
    }
    if (this.pending.length > MAX_LINE_OCTETS) {
      throw new SmtpProtocolError(`reply line longer than ${MAX_LINE_OCTETS} octets`);
    }
    return replies;
  }

  private acceptLine(line: string): SmtpReply | undefined {
    if (line.length > MAX_LINE_OCTETS)
      throw new SmtpProtocolError(`reply line longer than ${MAX_LINE_OCTETS} octets`);
    const match = REPLY_LINE.exec(line);
    if (!match) throw new SmtpProtocolError(`malformed reply line: ${JSON.stringify(line.slice(0, 80))}`);
    const [, code, separator, text = ''] = match;
    this.lines.push(text);
    if (separator === '-') {
      if (this.lines.length > MAX_REPLY_LINES)
        throw new SmtpProtocolError(`reply with more than ${MAX_REPLY_LINES} lines`);
      return undefined;
    }
    // The last line carries the code that counts; RFC 5321 requires all lines to repeat it anyway.
    const lines = this.lines;
    this.lines = [];
    const enhanced = ENHANCED.exec(lines[0]) ?? ENHANCED.exec(lines[lines.length - 1]);
    const reply: SmtpReply = { code: Number(code), lines };
    if (enhanced && enhanced[1] === code[0])
      reply.enhanced = `${enhanced[1]}.${Number(enhanced[2])}.${Number(enhanced[3])}`;
    return reply;
  }
}

/** `550 5.1.1 No such user` style text of a reply, multi-line replies joined by spaces. */
export function formatReply(reply: SmtpReply): string {
  return `${reply.code} ${reply.lines.join(' ')}`.trim();
}
