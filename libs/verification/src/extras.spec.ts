import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { ExtrasLookup, registrationEvent, type ExtrasOptions } from './extras';
import { FakeClock, fakeFetch } from './testing/fakes';

const OPTIONS: ExtrasOptions = {
  gravatarBaseUrl: 'http://gravatar.test/avatar/',
  rdapBaseUrl: 'http://rdap.test',
  httpTimeoutMs: 1000,
  cacheTtlMs: 60_000,
};
const DAY = 86_400_000;

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

describe('ExtrasLookup.gravatar', () => {
  it('asks with d=404 for the SHA-256 of the lowercased address and reports a hit', async () => {
    const hash = sha256('alice@example.com');
    const http = fakeFetch({
      'http://gravatar.test/': (url) =>
        new Response('png', { status: url.pathname.endsWith(hash) ? 200 : 404 }),
    });
    const extras = new ExtrasLookup(OPTIONS, http.fetch, new FakeClock());
    expect(await extras.gravatar(' Alice@Example.com')).toEqual({
      hasGravatar: true,
      gravatarUrl: `http://gravatar.test/avatar/${hash}`,
    });
    expect(http.requests).toEqual([`http://gravatar.test/avatar/${hash}?d=404`]);
    expect(await extras.gravatar('bob@example.com')).toEqual({ hasGravatar: false, gravatarUrl: '' });
  });

  it('caches definite answers but not failures', async () => {
    let status = 503;
    const http = fakeFetch({ 'http://gravatar.test/': () => new Response(null, { status }) });
    const extras = new ExtrasLookup(OPTIONS, http.fetch, new FakeClock());
    expect((await extras.gravatar('a@example.com')).hasGravatar).toBe(false);
    status = 200;
    expect((await extras.gravatar('a@example.com')).hasGravatar).toBe(true);
    expect((await extras.gravatar('a@example.com')).hasGravatar).toBe(true);
    expect(http.requests).toHaveLength(2);
  });

  it('swallows network errors and does nothing when disabled', async () => {
    const failing = new ExtrasLookup(OPTIONS, fakeFetch({}).fetch, new FakeClock());
    expect(await failing.gravatar('a@example.com')).toEqual({ hasGravatar: false, gravatarUrl: '' });
    const http = fakeFetch({});
    const disabled = new ExtrasLookup({ ...OPTIONS, gravatarBaseUrl: '' }, http.fetch, new FakeClock());
    expect(await disabled.gravatar('a@example.com')).toEqual({ hasGravatar: false, gravatarUrl: '' });
    expect(http.requests).toEqual([]);
  });
});

describe('ExtrasLookup.domainAge', () => {
  const rdapBody = (date: string) =>
    JSON.stringify({
      objectClassName: 'domain',
      events: [
        { eventAction: 'last changed', eventDate: '2025-01-01T00:00:00Z' },
        { eventAction: 'registration', eventDate: date },
      ],
    });

  it('counts whole days since the registration event', async () => {
    const clock = new FakeClock(Date.parse('2026-01-11T12:00:00Z'));
    const http = fakeFetch({
      'http://rdap.test/domain/': () => new Response(rdapBody('2026-01-01T00:00:00Z')),
    });
    const extras = new ExtrasLookup({ ...OPTIONS, cacheTtlMs: 7 * DAY }, http.fetch, clock);
    expect(await extras.domainAge('example.com')).toBe(10);
    expect(http.requests).toEqual(['http://rdap.test/domain/example.com']);
    clock.advance(DAY);
    expect(await extras.domainAge('example.com')).toBe(11);
    expect(http.requests).toHaveLength(1);
  });

  it.each([
    ['a 404', () => new Response('{}', { status: 404 })],
    ['a 503', () => new Response('down', { status: 503 })],
    ['invalid JSON', () => new Response('{not json')],
    ['no registration event', () => new Response(JSON.stringify({ events: [] }))],
    ['a network failure', () => Promise.reject(new TypeError('fetch failed'))],
  ])('answers 0 for %s', async (_label, handler) => {
    const http = fakeFetch({ 'http://rdap.test/': handler });
    expect(await new ExtrasLookup(OPTIONS, http.fetch, new FakeClock()).domainAge('example.com')).toBe(0);
  });

  it('does not ask when disabled or for an address literal', async () => {
    const http = fakeFetch({});
    expect(
      await new ExtrasLookup({ ...OPTIONS, rdapBaseUrl: '' }, http.fetch, new FakeClock()).domainAge(
        'example.com',
      ),
    ).toBe(0);
    expect(await new ExtrasLookup(OPTIONS, http.fetch, new FakeClock()).domainAge('[127.0.0.1]')).toBe(0);
    expect(http.requests).toEqual([]);
  });
});

describe('registrationEvent', () => {
  it('ignores malformed bodies', () => {
    expect(registrationEvent(null)).toBeUndefined();
    expect(registrationEvent({ events: 'x' })).toBeUndefined();
    expect(
      registrationEvent({ events: [null, { eventAction: 'registration', eventDate: 'garbage' }] }),
    ).toBeUndefined();
    expect(
      registrationEvent({ events: [{ eventAction: 'registration', eventDate: '2020-02-02T00:00:00Z' }] }),
    ).toBe(Date.parse('2020-02-02T00:00:00Z'));
  });
});
