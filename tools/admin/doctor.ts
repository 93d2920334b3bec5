import {
  loadConfig,
  SMTP_EGRESS_KEEP_EMPTY,
  smtpEgressConfigShape,
  smtpEgressOptions,
} from '@emailverify/service-kit/config';
import { defaultVerificationOptions, runDoctor, type DoctorCheck } from '@emailverify/verification';
import { z } from 'zod';
import type { DoctorRequest } from './doctor-request';

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
  const { domain, mx, egressIp } = request;
  const checks = await runDoctor(
    { domain, mx, egressIp },
    { ...defaultVerificationOptions(), ...smtpEgressOptions(config) },
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
