import { randomBytes } from 'node:crypto';
import type { Clock, Random, VerificationDependencies } from './dependencies';
import { createNodeResolver, type NodeResolverOptions } from './dns';
import { DEFAULT_TUNING, type VerificationOptions } from './options';
import { netDialer } from './smtp/dialer';
import { socksDialer } from './smtp/socks';

export const systemClock: Clock = { now: () => Date.now() };

/** Cryptographic randomness, so a server cannot predict (and whitelist) the catch-all probe address. */
export const secureRandom: Random = () => randomBytes(4).readUInt32BE(0) / 2 ** 32;

/**
 * The production wiring: c-ares resolver on the configured servers, TCP (through the SOCKS5 proxies when
 * configured), global fetch, system clock.
 */
export function createDefaultDependencies(options: VerificationOptions): VerificationDependencies {
  return {
    resolver: createNodeResolver(resolverOptions(options)),
    dial: options.smtpProxies?.length ? socksDialer(options.smtpProxies) : netDialer,
    fetch: (url, init) => fetch(url, init),
    clock: systemClock,
    random: secureRandom,
  };
}

/** The resolver settings of the engine's options: DNS_SERVERS, DNS_TIMEOUT_MS and the tries. */
export function resolverOptions(options: VerificationOptions): NodeResolverOptions {
  return {
    dnsServers: options.dnsServers,
    dnsTimeoutMs: options.dnsTimeoutMs,
    dnsTries: options.dnsTries ?? DEFAULT_TUNING.dnsTries,
  };
}
