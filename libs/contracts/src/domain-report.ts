import type { DomainReputation } from './verification';

/** Why a domain can or cannot receive mail (the `reason` of a domain report). */
export const DOMAIN_REASONS = [
  'mx_found',
  'null_mx',
  'no_mx_records',
  'domain_not_found',
  'dns_error',
] as const;
export type DomainReason = (typeof DOMAIN_REASONS)[number];

/** DMARC policies (`p=` of the `_dmarc` record). */
export const DMARC_POLICIES = ['none', 'quarantine', 'reject'] as const;
export type DmarcPolicy = (typeof DMARC_POLICIES)[number];

/** One mail host of a domain with the addresses it may be reached at. */
export interface DomainMxHost {
  host: string;
  preference: number;
  addresses: string[];
}

/** The blocklist listings of one MX IPv4 address. */
export interface MxIpListing {
  ip: string;
  blacklists: string[];
}

/** The reputation of an address's domain, with the listings of every MX IPv4 address besides the first one's. */
export interface DomainReportReputation extends DomainReputation {
  mxIps: MxIpListing[];
}

/** What the service knows about a domain's ability to receive mail, from DNS, blocklists, RDAP and SMTP. */
export interface DomainReport {
  /** ASCII (punycode) form. */
  domain: string;
  acceptsMail: boolean;
  reason: DomainReason;
  /** MX host names in preference order (the domain itself when it is its own mail host). */
  mxRecords: string[];
  /** The mail hosts that have an address the service may connect to, in preference order. */
  mxHosts: DomainMxHost[];
  hasNullMx: boolean;
  implicitMx: boolean;
  /** true or false when an SMTP probe was asked for and was conclusive, else null. */
  isCatchall: boolean | null;
  isDisposable: boolean;
  isFree: boolean;
  domainAge: number;
  domainReputation: DomainReportReputation;
  spf: { present: boolean; record: string | null };
  dmarc: { present: boolean; policy: DmarcPolicy | null };
  /** Milliseconds spent. */
  responseTime: number;
}

/** A domain report as returned to a caller, with what it cost. */
export interface BilledDomainReport extends DomainReport {
  creditsUsed: number;
  cached: boolean;
}
