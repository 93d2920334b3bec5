import { describe, expect, it } from 'vitest';
import { parseServers } from './bus';

describe('parseServers (NATS_URL)', () => {
  it('splits a comma-separated list', () => {
    expect(parseServers('nats://a:4222, nats://b:4222,nats://c:4222')).toEqual({
      servers: ['nats://a:4222', 'nats://b:4222', 'nats://c:4222'],
      user: undefined,
      pass: undefined,
    });
  });

  it('takes credentials out of the URLs (the client would ignore them) and decodes them', () => {
    expect(parseServers('nats://gate%40way:p%3Ass@a:4222,nats://other:x@b:4222,tls://c:4222')).toEqual({
      servers: ['nats://a:4222', 'nats://b:4222', 'tls://c:4222'],
      user: 'gate@way',
      pass: 'p:ss',
    });
    expect(parseServers('nats://token-only@a:4222')).toEqual({
      servers: ['nats://a:4222'],
      user: 'token-only',
      pass: '',
    });
  });
});
