import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MailWorld } from './index';

describe('MailWorld HTTP stand-ins', () => {
  let world: MailWorld;
  const registered = 'Jane.Doe@Example.test';
  const md5 = (s: string) => createHash('md5').update(s).digest('hex');
  const sha256 = (s: string) => createHash('sha256').update(s).digest('hex');

  beforeAll(async () => {
    world = await MailWorld.start();
    world
      .registerGravatar(`  ${registered} `)
      .domain('old.test', { a: {}, createdAt: new Date('2001-02-03T04:05:06.000Z') })
      .domain('undated.test', { a: {} });
  });

  afterAll(async () => {
    await world?.stop();
  });

  it('serves on loopback', () => {
    expect(new URL(world.gravatarBaseUrl).hostname).toBe('127.0.0.1');
    expect(new URL(world.rdapBaseUrl).hostname).toBe('127.0.0.1');
  });

  it('answers a registered address by its MD5 or SHA-256 hash (trimmed, lowercased) with an image', async () => {
    for (const hash of [md5('jane.doe@example.test'), sha256('jane.doe@example.test')]) {
      const res = await fetch(`${world.gravatarBaseUrl}/${hash}?d=404`);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe('image/png');
      expect((await res.arrayBuffer()).byteLength).toBeGreaterThan(0);
    }
  });

  it('answers 404 for an unregistered hash when asked d=404, and a default image otherwise (as Gravatar does)', async () => {
    const res = await fetch(`${world.gravatarBaseUrl}/${md5('nobody@example.test')}?d=404`);
    expect(res.status).toBe(404);
    await res.arrayBuffer();
    const fallback = await fetch(`${world.gravatarBaseUrl}/${md5('nobody@example.test')}`);
    expect(fallback.status).toBe(200);
    await fallback.arrayBuffer();
  });

  it('answers RDAP with the registration event of a dated domain', async () => {
    const res = await fetch(`${world.rdapBaseUrl}/domain/old.test`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/rdap+json');
    const body = (await res.json()) as {
      ldhName: string;
      events: { eventAction: string; eventDate: string }[];
    };
    expect(body.ldhName).toBe('old.test');
    expect(body.events).toContainEqual({
      eventAction: 'registration',
      eventDate: '2001-02-03T04:05:06.000Z',
    });
  });

  it('answers RDAP 404 for a domain without a date and for unknown domains', async () => {
    for (const domain of ['undated.test', 'unknown.test']) {
      const res = await fetch(`${world.rdapBaseUrl}/domain/${domain}`);
      expect(res.status).toBe(404);
      await res.arrayBuffer();
    }
  });

  it('answers 503 from both stand-ins while HTTP is down, and recovers', async () => {
    world.setHttpDown(true);
    try {
      const avatar = await fetch(`${world.gravatarBaseUrl}/${md5('jane.doe@example.test')}?d=404`);
      const rdap = await fetch(`${world.rdapBaseUrl}/domain/old.test`);
      expect([avatar.status, rdap.status]).toEqual([503, 503]);
      await Promise.all([avatar.arrayBuffer(), rdap.arrayBuffer()]);
    } finally {
      world.setHttpDown(false);
    }
    const again = await fetch(`${world.rdapBaseUrl}/domain/old.test`);
    expect(again.status).toBe(200);
    await again.arrayBuffer();
  });

  it('counts requests per stand-in until reset', async () => {
    world.resetCounters();
    await (await fetch(`${world.gravatarBaseUrl}/${md5('a@b.test')}?d=404`)).arrayBuffer();
    await (await fetch(`${world.rdapBaseUrl}/domain/old.test`)).arrayBuffer();
    await (await fetch(`${world.rdapBaseUrl}/domain/undated.test`)).arrayBuffer();
    expect(world.httpRequests('gravatar')).toBe(1);
    expect(world.httpRequests('rdap')).toBe(2);
    expect(world.httpRequests()).toBe(3);
    world.resetCounters();
    expect(world.httpRequests()).toBe(0);
  });
});
