import type { Duplex } from 'node:stream';
import type { Resolver } from './dns';
import type { MxLimiter } from './smtp/limiter';

/** Milliseconds since the epoch; injected so cache lifetimes and response times can be tested. */
export interface Clock {
  now(): number;
}

/** Uniform in [0, 1); injected so the catch-all probe address is predictable in tests. */
export type Random = () => number;

export interface DialTarget {
  /** IP address of the mail host (already resolved through the configured resolver). */
  host: string;
  port: number;
  /** The MX host name the address belongs to. */
  mxHost?: string;
  /**
   * The address the session asks about. Its egress proxy is chosen from it, so every attempt at one address
   * (a greylisting retry, on any verifier) leaves from the same place.
   */
  recipient?: string;
}

/**
 * Opens a TCP connection and resolves once it is established. Must reject when `signal` aborts (the caller
 * owns the connect timeout) and reject with an error whose `code` is e.g. ECONNREFUSED on refusal.
 */
export type Dialer = (target: DialTarget, signal: AbortSignal) => Promise<Duplex>;

/** The subset of global fetch the extras use. */
export type FetchLike = (url: string, init: RequestInit) => Promise<Response>;

export interface VerificationDependencies {
  resolver: Resolver;
  dial: Dialer;
  fetch: FetchLike;
  clock: Clock;
  random: Random;
  /** Per-MX-host session cap; in-process when absent, shared through Redis across verifiers when given. */
  limiter?: MxLimiter;
}
