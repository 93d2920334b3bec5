import { DNS_ERROR, dnsErrorCode, type Resolver } from './dns';
import type { SmtpOutcome } from './smtp';

/** The DNS record types the engine asks for. */
export type DnsQueryType = 'mx' | 'a' | 'aaaa' | 'txt';

/** How a DNS query ended; a small fixed set, so it can label a metric. */
export type DnsQueryOutcome = 'ok' | 'nxdomain' | 'nodata' | 'timeout' | 'servfail' | 'refused' | 'error';

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
  switch (dnsErrorCode(error)) {
    case DNS_ERROR.NOT_FOUND:
      return 'nxdomain';
    case DNS_ERROR.NO_DATA:
      return 'nodata';
    case DNS_ERROR.TIMEOUT:
      return 'timeout';
    case DNS_ERROR.SERVFAIL:
      return 'servfail';
    case DNS_ERROR.REFUSED:
      return 'refused';
    default:
      return 'error';
  }
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
