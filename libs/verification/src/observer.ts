import { DNS_ERROR, dnsErrorCode, type Resolver } from './dns';
import type { SmtpOutcome } from './smtp';

/** The DNS record types the engine asks for. */
export type DnsQueryType = 'mx' | 'a' | 'aaaa' | 'txt';

/** The outcome each DNS error code a query can fail with stands for. */
const DNS_FAILURES = {
  [DNS_ERROR.NOT_FOUND]: 'nxdomain',
  [DNS_ERROR.NO_DATA]: 'nodata',
  [DNS_ERROR.TIMEOUT]: 'timeout',
  [DNS_ERROR.SERVFAIL]: 'servfail',
  [DNS_ERROR.REFUSED]: 'refused',
} as const satisfies Record<(typeof DNS_ERROR)[keyof typeof DNS_ERROR], string>;

/** How a DNS query ended; a small fixed set, so it can label a metric. */
export type DnsQueryOutcome = 'ok' | (typeof DNS_FAILURES)[keyof typeof DNS_FAILURES] | 'error';

/**
 * Told how long the engine's network work took, for metrics. Outcomes are small fixed sets; neither the address
 * nor the domain is ever passed on.
 */
export interface VerificationObserver {
  /** One DNS query (MX, A, AAAA or TXT, blocklist lookups included). */
  dnsQuery?(type: DnsQueryType, outcome: DnsQueryOutcome, seconds: number): void;
  /**
   * One SMTP probe of an address, every host it tried included: its outcome (`accepted`, `rejected`, `unknown`)
   * and reason (`none` when accepted).
   */
  smtpProbe?(outcome: SmtpOutcome['kind'], reason: string, seconds: number): void;
}

export function dnsQueryOutcome(error: unknown): DnsQueryOutcome {
  const code = dnsErrorCode(error);
  return Object.hasOwn(DNS_FAILURES, code) ? DNS_FAILURES[code as keyof typeof DNS_FAILURES] : 'error';
}

/** The resolver, each query timed and told to `observer`. */
export function observedResolver(resolver: Resolver, observer: VerificationObserver): Resolver {
  const dnsQuery = observer.dnsQuery?.bind(observer);
  if (!dnsQuery) return resolver;
  const timed =
    <T>(type: DnsQueryType, query: (name: string) => Promise<T>) =>
    async (name: string): Promise<T> => {
      const started = performance.now();
      try {
        const answer = await query(name);
        dnsQuery(type, 'ok', (performance.now() - started) / 1000);
        return answer;
      } catch (error) {
        dnsQuery(type, dnsQueryOutcome(error), (performance.now() - started) / 1000);
        throw error;
      }
    };
  const resolveTxt = resolver.resolveTxt?.bind(resolver);
  return {
    resolveMx: timed('mx', (name) => resolver.resolveMx(name)),
    resolve4: timed('a', (name) => resolver.resolve4(name)),
    resolve6: timed('aaaa', (name) => resolver.resolve6(name)),
    ...(resolveTxt ? { resolveTxt: timed('txt', resolveTxt) } : {}),
  };
}
