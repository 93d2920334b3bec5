import { describe, expect, it } from 'vitest';
import { ReplyParser, SmtpProtocolError, formatReply } from './reply';

const bytes = (text: string) => Buffer.from(text, 'utf8');

describe('ReplyParser', () => {
  it('parses a single-line reply with an enhanced code', () => {
    const [reply] = new ReplyParser().push(bytes('550 5.1.1 <x@example.com>: user unknown\r\n'));
    expect(reply).toEqual({ code: 550, lines: ['5.1.1 <x@example.com>: user unknown'], enhanced: '5.1.1' });
    expect(formatReply(reply)).toBe('550 5.1.1 <x@example.com>: user unknown');
  });

  it('joins a multi-line reply and finishes it only at the line with a space', () => {
    const parser = new ReplyParser();
    expect(parser.push(bytes('250-mx.example greets you\r\n250-SIZE 1000\r\n'))).toEqual([]);
    const [reply] = parser.push(bytes('250 SMTPUTF8\r\n'));
    expect(reply.code).toBe(250);
    expect(reply.lines).toEqual(['mx.example greets you', 'SIZE 1000', 'SMTPUTF8']);
    expect(reply.enhanced).toBeUndefined();
  });

  it('reassembles a reply split anywhere, CRLF and multi-byte characters included', () => {
    const text = '250-héllo wörld\r\n250 2.0.0 ok ✓\r\n';
    const whole = bytes(text);
    for (let cut = 1; cut < whole.length; cut++) {
      const parser = new ReplyParser();
      const replies = [...parser.push(whole.subarray(0, cut)), ...parser.push(whole.subarray(cut))];
      expect(replies).toEqual([{ code: 250, lines: ['héllo wörld', '2.0.0 ok ✓'], enhanced: '2.0.0' }]);
    }
  });

  it('returns several replies that arrive in one chunk, in order', () => {
    const replies = new ReplyParser().push(bytes('250 ok\r\n550 no\r\n221 bye\r\n'));
    expect(replies.map((r) => r.code)).toEqual([250, 550, 221]);
  });

  it('accepts a bare LF and a code without text', () => {
    const replies = new ReplyParser().push(bytes('220\n250 fine\n'));
    expect(replies).toEqual([
      { code: 220, lines: [''] },
      { code: 250, lines: ['fine'] },
    ]);
  });

  it('takes the enhanced code only when its class matches the reply code', () => {
    const [mismatch] = new ReplyParser().push(bytes('250 5.1.1 odd\r\n'));
    expect(mismatch.enhanced).toBeUndefined();
    const [leadingZeros] = new ReplyParser().push(bytes('452 4.02.002 over quota\r\n'));
    expect(leadingZeros.enhanced).toBe('4.2.2');
  });

  it.each(['hello there\r\n', '25 short\r\n', '999 nine\r\n', '250x glued\r\n'])(
    'rejects the malformed line %j',
    (line) => {
      expect(() => new ReplyParser().push(bytes(line))).toThrow(SmtpProtocolError);
    },
  );

  it('refuses an endless line instead of buffering it', () => {
    const parser = new ReplyParser();
    expect(() => parser.push(Buffer.alloc(10_000, 0x41))).toThrow(/longer than/);
  });

  it('refuses a reply with endless continuation lines', () => {
    expect(() => new ReplyParser().push(bytes('250-x\r\n'.repeat(300)))).toThrow(/more than 256 lines/);
  });
});
