import { hostname } from 'node:os';
import type { ProviderRule } from './providers';
import type { SocksProxy } from './smtp/socks';

/**
 * Engine settings. The first block maps 1:1 to environment variables (`DNS_SERVERS` -> `dnsServers`, ...);
 * the apps parse and validate the environment and hand the typed values in. The optional block holds tuning
 * that has no variable of its own.
 */
export interface VerificationOptions {
  /** DNS_SERVERS: `host[:port]` list; empty means the servers of /etc/resolv.conf (still not getaddrinfo). */
  dnsServers: readonly string[];
  /** DNS_TIMEOUT_MS */
  dnsTimeoutMs: number;
  /** SMTP_PORT */
  smtpPort: number;
  /** SMTP_HELO_NAME */
  smtpHeloName: string;
  /** SMTP_MAIL_FROM */
  smtpMailFrom: string;
  /** SMTP_CONNECT_TIMEOUT_MS */
  smtpConnectTimeoutMs: number;
  /** SMTP_COMMAND_TIMEOUT_MS */
  smtpCommandTimeoutMs: number;
  /** SMTP_MAX_CONCURRENCY_PER_MX */
  smtpMaxConcurrencyPerMx: number;
  /** SMTP_SEMAPHORE_TIMEOUT_MS */
  smtpSemaphoreTimeoutMs: number;
  /** DNSBL_IP_ZONES; empty disables */
  dnsblIpZones: readonly string[];
  /** DNSBL_DOMAIN_ZONES; empty disables */
  dnsblDomainZones: readonly string[];
  /** GRAVATAR_BASE_URL; empty disables */
  gravatarBaseUrl: string;
  /** RDAP_BASE_URL; empty disables */
  rdapBaseUrl: string;
  /** SMTP_ALLOW_PRIVATE_NETWORKS: mail hosts and address literals in non-public ranges are contacted too. */
  smtpAllowPrivateNetworks: boolean;
  /** SMTP_PROVIDER_RULES_FILE's rules, checked before the shipped ones; none by default. */
  smtpProviderRules?: readonly ProviderRule[];
  /** SMTP_PROXY_URL: SOCKS5 proxies every probe connection goes through, one per address (by its hash); none by default. */
  smtpProxies?: readonly SocksProxy[];

  /** Attempts per DNS query (c-ares `tries`); default 2. */
  dnsTries?: number;
  /** Timeout of each gravatar/RDAP request; default 3000. */
  httpTimeoutMs?: number;
  /** Lifetime of cached domain facts (MX, blocklists, catch-all, RDAP); default 10 minutes. */
  domainCacheTtlMs?: number;
  /** Mail hosts tried per address; default 3. */
  smtpMaxHosts?: number;
}

/** The defaults docs/configuration.md lists; `host` fills SMTP_HELO_NAME and SMTP_MAIL_FROM. */
export function defaultVerificationOptions(host: string = hostname()): VerificationOptions {
  return {
    dnsServers: [],
    dnsTimeoutMs: 3000,
    smtpPort: 25,
    smtpHeloName: host,
    smtpMailFrom: `verify@${host}`,
    smtpConnectTimeoutMs: 5000,
    smtpCommandTimeoutMs: 10000,
    smtpMaxConcurrencyPerMx: 5,
    smtpSemaphoreTimeoutMs: 3000,
    dnsblIpZones: ['zen.spamhaus.org'],
    dnsblDomainZones: ['dbl.spamhaus.org'],
    gravatarBaseUrl: 'https://gravatar.com/avatar',
    rdapBaseUrl: 'https://rdap.org',
    smtpAllowPrivateNetworks: false,
  };
}

export const DEFAULT_TUNING = {
  dnsTries: 2,
  httpTimeoutMs: 3000,
  domainCacheTtlMs: 10 * 60_000,
  smtpMaxHosts: 3,
} as const;
