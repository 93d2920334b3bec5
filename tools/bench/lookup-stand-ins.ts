// Gravatar and RDAP stand-ins for the benchmarks: the services run at their production defaults, which look both
// up, so the benchmarks point them at these, on loopback, answering after the delay the real services take.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type Cleanup, log } from './common';

/** How long the real services take to answer, about: one round trip to a third party. */
export const DEFAULT_LOOKUP_DELAY_MS = 50;

/**
 * `--lookup-delay-ms N` (default DEFAULT_LOOKUP_DELAY_MS): how long the stand-ins wait before answering; 0 answers
 * at once. A bad value stops the benchmark with the flag's name.
 */
export function lookupDelayMs(argv: readonly string[] = process.argv): number {
  const at = argv.indexOf('--lookup-delay-ms');
  if (at < 0) return DEFAULT_LOOKUP_DELAY_MS;
  const value = argv[at + 1];
  if (value === undefined || !/^\d{1,6}$/.test(value)) {
    throw new Error(`--lookup-delay-ms takes whole milliseconds (0 to 999999), got ${value ?? 'nothing'}`);
  }
  return Number(value);
}

/** Requests the stand-ins answered, by service. */
export interface LookupCounts {
  gravatar: number;
  rdap: number;
}

/** A registration date well in the past: every domain the stand-in is asked about has existed for years. */
const REGISTERED = '2001-01-01T00:00:00Z';

/**
 * One `node:http` server at 127.0.0.1 answering `/avatar/<hash>` (404: no Gravatar, as for most addresses) and
 * `/rdap/domain/<name>` (an RFC 9083 domain object with a registration event), each after `delayMs`. It counts
 * what it was asked, so a report can say how many lookups a run made.
 */
export class LookupStandIns {
  private readonly counts: LookupCounts = { gravatar: 0, rdap: 0 };

  private constructor(
    readonly port: number,
    readonly delayMs: number,
  ) {}

  static async start(cleanup: Cleanup, delayMs = lookupDelayMs()): Promise<LookupStandIns> {
    const server = createServer();
    // Many lookups wait at once (one per address in flight): no idle socket may hold the process at the end.
    server.keepAliveTimeout = 5_000;
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, '127.0.0.1', () => resolve());
    });
    const standIns = new LookupStandIns((server.address() as AddressInfo).port, delayMs);
    server.on('request', (req: IncomingMessage, res: ServerResponse) => standIns.answer(req, res));
    cleanup.add('lookup stand-ins', async () => {
      const { gravatar, rdap } = standIns.requests();
      log(`Gravatar and RDAP stand-ins answered ${gravatar} and ${rdap} requests`);
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    });
    log(`Gravatar and RDAP stand-ins on 127.0.0.1:${standIns.port}, answering after ${delayMs} ms`);
    return standIns;
  }

  /** The services' settings that point them here instead of the real services (their defaults). */
  env(): Record<string, string> {
    return {
      GRAVATAR_BASE_URL: `http://127.0.0.1:${this.port}/avatar`,
      RDAP_BASE_URL: `http://127.0.0.1:${this.port}/rdap`,
    };
  }

  /** Requests answered so far. */
  requests(): LookupCounts {
    return { ...this.counts };
  }

  private answer(req: IncomingMessage, res: ServerResponse): void {
    const path = (req.url ?? '/').split('?')[0]!;
    let status = 404;
    let body = '';
    if (path.startsWith('/avatar/')) {
      this.counts.gravatar += 1;
    } else if (path.startsWith('/rdap/domain/')) {
      this.counts.rdap += 1;
      status = 200;
      body = JSON.stringify({
        objectClassName: 'domain',
        ldhName: decodeURIComponent(path.slice('/rdap/domain/'.length)),
        events: [{ eventAction: 'registration', eventDate: REGISTERED }],
      });
    }
    const send = () => {
      res.writeHead(status, {
        'content-type': status === 200 ? 'application/rdap+json' : 'text/plain',
        'content-length': Buffer.byteLength(body),
      });
      res.end(body);
    };
    if (this.delayMs > 0) setTimeout(send, this.delayMs);
    else send();
  }
}
