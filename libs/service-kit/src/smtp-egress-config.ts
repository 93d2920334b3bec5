import { hostname } from 'node:os';
import { parseSocksProxyUrl, type SocksProxy, type VerificationOptions } from '@emailverify/verification';
import { z } from 'zod';
import { bool, int, list } from './config';

const host = hostname();

/**
 * The variables that say how this host reaches mail servers: its DNS servers, its SMTP identity and timeouts,
 * the IP blocklists, the network rule and the SOCKS5 proxies. Read by the verifier and by `admin doctor`, which checks them.
 */
export const smtpEgressConfigShape = {
  DNS_SERVERS: list(''),
  DNS_TIMEOUT_MS: int(3000, 100, 60_000),
  SMTP_PORT: int(25, 1, 65535),
  SMTP_HELO_NAME: z.string().min(1).default(host),
  SMTP_MAIL_FROM: z.string().min(3).default(`verify@${host}`),
  SMTP_CONNECT_TIMEOUT_MS: int(5000, 100, 120_000),
  SMTP_COMMAND_TIMEOUT_MS: int(10_000, 100, 300_000),
  DNSBL_IP_ZONES: list('zen.spamhaus.org'),
  SMTP_ALLOW_PRIVATE_NETWORKS: bool(false),
  /** Comma-separated socks5://[user:password@]host[:port] list; every SMTP connection goes through one. */
  SMTP_PROXY_URL: list('').transform((urls, ctx): SocksProxy[] => {
    const proxies: SocksProxy[] = [];
    for (const [i, url] of urls.entries()) {
      try {
        proxies.push(parseSocksProxyUrl(url));
      } catch (error) {
        // The message names the entry by position: the URL itself may hold a password.
        ctx.addIssue({
          code: 'custom',
          message: `proxy ${i + 1}: ${error instanceof Error ? error.message : String(error)}`,
        });
        return z.NEVER;
      }
    }
    return proxies;
  }),
};

/** Variables of smtpEgressConfigShape where an empty value means "none" rather than "default". */
export const SMTP_EGRESS_KEEP_EMPTY: readonly string[] = ['DNS_SERVERS', 'DNSBL_IP_ZONES'];

export type SmtpEgressConfig = z.infer<z.ZodObject<typeof smtpEgressConfigShape>>;

/** The engine options these variables set. */
export function smtpEgressOptions(
  config: Readonly<SmtpEgressConfig>,
): Pick<
  VerificationOptions,
  | 'dnsServers'
  | 'dnsTimeoutMs'
  | 'smtpPort'
  | 'smtpHeloName'
  | 'smtpMailFrom'
  | 'smtpConnectTimeoutMs'
  | 'smtpCommandTimeoutMs'
  | 'dnsblIpZones'
  | 'smtpAllowPrivateNetworks'
  | 'smtpProxies'
> {
  return {
    dnsServers: config.DNS_SERVERS,
    dnsTimeoutMs: config.DNS_TIMEOUT_MS,
    smtpPort: config.SMTP_PORT,
    smtpHeloName: config.SMTP_HELO_NAME,
    smtpMailFrom: config.SMTP_MAIL_FROM,
    smtpConnectTimeoutMs: config.SMTP_CONNECT_TIMEOUT_MS,
    smtpCommandTimeoutMs: config.SMTP_COMMAND_TIMEOUT_MS,
    dnsblIpZones: config.DNSBL_IP_ZONES,
    smtpAllowPrivateNetworks: config.SMTP_ALLOW_PRIVATE_NETWORKS,
    smtpProxies: config.SMTP_PROXY_URL,
  };
}
