import { isIP } from 'node:net';
import { domainToASCII } from 'node:url';

/** A domain whose mail hosts are always up: the reachability check's default target. */
export const DEFAULT_DOCTOR_DOMAIN = 'gmail.com';

export interface DoctorRequest {
  domain: string;
  mx?: string;
  egressIp?: string;
  json: boolean;
}

const HOST_NAME =
  /^(?=.{1,253}$)([a-z0-9_]([a-z0-9_-]{0,61}[a-z0-9_])?)(\.[a-z0-9_]([a-z0-9_-]{0,61}[a-z0-9_])?)*$/;

/** A host name in its ASCII form, or undefined when `value` is not one. */
function hostName(value: string): string | undefined {
  const ascii = domainToASCII(value.trim().replace(/\.$/, '')).toLowerCase();
  return HOST_NAME.test(ascii) ? ascii : undefined;
}

/** Reads doctor's options; a bad one is reported through `invalid` (the CLI's usage error). */
export function doctorRequest(
  options: { domain?: string; mx?: string; 'egress-ip'?: string; json?: boolean },
  invalid: (message: string) => Error,
): DoctorRequest {
  const domain = options.domain === undefined ? DEFAULT_DOCTOR_DOMAIN : hostName(options.domain);
  if (!domain || !domain.includes('.'))
    throw invalid(`--domain must be a domain name (got "${options.domain}")`);
  let mx: string | undefined;
  if (options.mx !== undefined) {
    mx = isIP(options.mx) ? options.mx : hostName(options.mx);
    if (!mx) throw invalid(`--mx must be a host name or an IP address (got "${options.mx}")`);
  }
  const egressIp = options['egress-ip'];
  if (egressIp !== undefined && !isIP(egressIp))
    throw invalid(`--egress-ip must be an IPv4 or IPv6 address (got "${egressIp}")`);
  return { domain, mx, egressIp, json: options.json ?? false };
}
