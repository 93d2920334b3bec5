import { isIP } from 'node:net';
import { domainToASCII } from 'node:url';
import { loadConfig, SMTP_EGRESS_KEEP_EMPTY, smtpEgressConfigShape } from '@emailverify/service-kit';
import {
  createDefaultDependencies,
  createDiagnosticResolver,
  DEFAULT_TUNING,
  defaultVerificationOptions,
  runDoctor,
  type DoctorCheck,
} from '@emailverify/verification';
import { z } from 'zod';

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

const doctorConfigSchema = z.object(smtpEgressConfigShape);

/**
 * Runs the checks with the verifier's settings from the environment (no NATS, no database) and renders them:
 * one line per check, or JSON with `--json`. Exit status 0 when no check failed, 1 otherwise.
 */
export async function doctor(
  request: DoctorRequest,
  env: NodeJS.ProcessEnv = process.env,
): Promise<{ code: number; output: string }> {
  const config = loadConfig(doctorConfigSchema, env, SMTP_EGRESS_KEEP_EMPTY);
  const engine = {
    ...defaultVerificationOptions(),
    dnsServers: config.DNS_SERVERS,
    dnsTimeoutMs: config.DNS_TIMEOUT_MS,
    smtpPort: config.SMTP_PORT,
    smtpHeloName: config.SMTP_HELO_NAME,
    smtpMailFrom: config.SMTP_MAIL_FROM,
    smtpConnectTimeoutMs: config.SMTP_CONNECT_TIMEOUT_MS,
    smtpCommandTimeoutMs: config.SMTP_COMMAND_TIMEOUT_MS,
    dnsblIpZones: config.DNSBL_IP_ZONES,
    smtpAllowPrivateNetworks: config.SMTP_ALLOW_PRIVATE_NETWORKS,
  };
  const checks = await runDoctor(
    {
      domain: request.domain,
      mx: request.mx,
      egressIp: request.egressIp,
      egressThroughProxy: false,
      dnsServers: engine.dnsServers,
      smtpPort: engine.smtpPort,
      heloName: engine.smtpHeloName,
      connectTimeoutMs: engine.smtpConnectTimeoutMs,
      commandTimeoutMs: engine.smtpCommandTimeoutMs,
      dnsblZones: engine.dnsblIpZones,
      allowPrivateNetworks: engine.smtpAllowPrivateNetworks,
    },
    {
      resolver: createDiagnosticResolver({
        dnsServers: engine.dnsServers,
        dnsTimeoutMs: engine.dnsTimeoutMs,
        dnsTries: DEFAULT_TUNING.dnsTries,
      }),
      // The engine's own connection function, so the check goes the way verification's probes go.
      dial: createDefaultDependencies(engine).dial,
    },
  );
  const ok = checks.every((c) => c.status !== 'fail');
  const output = request.json ? `${JSON.stringify({ ok, checks }, null, 2)}\n` : checks.map(line).join('');
  return { code: ok ? 0 : 1, output };
}

const LABEL = { ok: 'ok  ', fail: 'FAIL', warn: 'warn' } as const;

function line(check: DoctorCheck): string {
  const advice = check.advice && check.status !== 'ok' ? `; to fix: ${check.advice}` : '';
  return `${LABEL[check.status]}  ${check.check.padEnd(9)}  ${check.message}${advice}\n`;
}
