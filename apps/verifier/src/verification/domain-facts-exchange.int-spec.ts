import { randomBytes } from 'node:crypto';
import { Broadcasts } from '@emailverify/contracts';
import { MessageBus } from '@emailverify/messaging';
import { eventually, MailWorld } from '@emailverify/testing';
import { VerificationEngine, type VerificationOptions } from '@emailverify/verification';
import { Counter, Registry } from 'prom-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DomainFactsExchange } from './domain-facts-exchange';

const url = process.env.NATS_URL || 'nats://127.0.0.1:4222';

/**
 * Two verifiers of one installation (one NATS namespace), each with its own engine and caches, against the
 * mail world's DNS on loopback: what one finds, the other verifies from without asking the DNS.
 */
describe('DomainFactsExchange: verifiers share what they find in the DNS (real NATS, real DNS)', () => {
  let world: MailWorld;
  const buses: MessageBus[] = [];

  function options(): VerificationOptions {
    return {
      dnsServers: [world.dnsServers],
      dnsTimeoutMs: 1000,
      dnsTries: 1,
      smtpPort: world.smtpPort,
      smtpHeloName: 'probe.verifier.test',
      smtpMailFrom: 'verify@verifier.test',
      smtpConnectTimeoutMs: 2000,
      smtpCommandTimeoutMs: 2000,
      smtpMaxConcurrencyPerMx: 5,
      smtpSemaphoreTimeoutMs: 2000,
      dnsblIpZones: [],
      dnsblDomainZones: [],
      gravatarBaseUrl: '',
      rdapBaseUrl: '',
      // The mail world lives on loopback.
      smtpAllowPrivateNetworks: true,
    };
  }

  /** One verifier's engine and exchange on the namespace, with its received-facts counter. */
  async function verifier(namespace: string, enabled = true) {
    const bus = await MessageBus.connect({ url, namespace, name: 'verifier' });
    buses.push(bus);
    const engine = new VerificationEngine(options());
    const received = new Counter({
      name: `shared_domain_facts_${randomBytes(3).toString('hex')}`,
      help: 'test',
      labelNames: ['outcome'],
      registers: [new Registry()],
    });
    const exchange = new DomainFactsExchange(
      bus,
      engine,
      { SHARE_DOMAIN_FACTS: enabled },
      { sharedDomainFacts: received },
    );
    exchange.start();
    await bus.flush();
    const count = async (outcome: string) =>
      (await received.get()).values.find((v) => v.labels.outcome === outcome)?.value ?? 0;
    return { bus, engine, exchange, count };
  }

  const mxOnly = { checkSmtp: false };

  beforeAll(async () => {
    world = await MailWorld.start();
    for (const name of ['one.test', 'two.test', 'three.test', 'four.test'])
      world.domain(name, { mx: [{ priority: 10, host: `mx.${name}`, smtp: { mailboxes: ['a'] } }] });
    await world.ready();
  });
  afterAll(async () => {
    await Promise.all(buses.map((b) => b.close()));
    await world?.stop();
  });

  it('lets the second verifier verify a domain the first resolved, with no DNS question of its own', async () => {
    const namespace = `t_facts_${randomBytes(4).toString('hex')}`;
    const a = await verifier(namespace);
    const b = await verifier(namespace);
    world.resetCounters();
    expect((await a.engine.verify('x@one.test', mxOnly)).reason).toBe('mx_found');
    expect((await a.engine.verify('y@gone.test', mxOnly)).reason).toBe('domain_not_found');
    const asked = world.dnsQueries();
    expect(asked).toBeGreaterThan(0);
    await eventually(async () => expect(await b.count('learnt')).toBe(2));

    const results = await b.engine.verifyMany(['p@one.test', 'q@one.test', 'r@gone.test'], mxOnly);
    expect(results.map((r) => `${r.status}/${r.reason}`)).toEqual([
      'valid/mx_found',
      'valid/mx_found',
      'invalid/domain_not_found',
    ]);
    expect(results[0]!.mxRecords).toEqual(['mx.one.test']);
    expect(world.dnsQueries()).toBe(asked);
    expect(await a.count('sent')).toBe(2);
    // A verifier ignores its own broadcasts.
    expect(await a.count('learnt')).toBe(0);
    expect(await a.count('known')).toBe(0);
  });

  it('keeps other installations apart, and shares nothing when switched off', async () => {
    const namespace = `t_facts_${randomBytes(4).toString('hex')}`;
    const a = await verifier(namespace);
    const stranger = await verifier(`t_facts_${randomBytes(4).toString('hex')}`);
    const off = await verifier(namespace, false);
    const listener = await verifier(namespace);
    await a.engine.verify('x@two.test', mxOnly);
    await off.engine.verify('x@three.test', mxOnly);
    await eventually(async () => expect(await listener.count('learnt')).toBe(1));
    world.resetCounters();
    await listener.engine.verify('z@three.test', mxOnly);
    expect(world.dnsQueries('three.test', 'MX')).toBe(1);
    await stranger.engine.verify('z@two.test', mxOnly);
    expect(world.dnsQueries('two.test', 'MX')).toBe(1);
    expect(await off.count('learnt')).toBe(0);
  });

  it('takes the well-formed facts of a broadcast and rejects the rest, which route nowhere', async () => {
    const namespace = `t_facts_${randomBytes(4).toString('hex')}`;
    const b = await verifier(namespace);
    const sender = await MessageBus.connect({ url, namespace, name: 'sender' });
    buses.push(sender);
    const deliverable = (addresses: unknown[]) => ({
      kind: 'deliverable',
      mxRecords: ['mx.four.test'],
      hosts: [{ exchange: 'mx.four.test', priority: 10, addresses }],
      implicitMx: false,
    });
    sender.publish(Broadcasts.domainFacts, {
      from: 'another',
      facts: [
        ['four.test', deliverable(['127.0.0.1; rm -rf /']), 60_000],
        ['FOUR.test', deliverable(['127.0.0.1']), 60_000],
        ['four.test', { kind: 'dns_error', message: 'timeout' }, 60_000],
        ['four.test', deliverable(['127.0.0.1']), -5],
        ['four.test', { ...deliverable(['127.0.0.1']), extra: 'field' }, 60_000],
        [
          'elsewhere.test',
          { kind: 'undeliverable', reason: 'null_mx', mxRecords: [], message: 'none' },
          60_000,
        ],
      ],
    });
    sender.publish(Broadcasts.domainFacts, { from: 'another', facts: 'everything' });
    await sender.flush();
    await eventually(async () => expect(await b.count('rejected')).toBe(6));
    expect(await b.count('learnt')).toBe(1);
    world.resetCounters();
    // Nothing malformed was taken: four.test is asked of the DNS; what was well formed is used as told.
    expect((await b.engine.verify('a@four.test', mxOnly)).reason).toBe('mx_found');
    expect(world.dnsQueries('four.test', 'MX')).toBe(1);
    expect((await b.engine.verify('a@elsewhere.test', mxOnly)).reason).toBe('null_mx');
    expect(world.dnsQueries('elsewhere.test')).toBe(0);
  });
});
