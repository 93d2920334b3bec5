import type { BilledVerificationResult, FileJobView } from '@emailverify/contracts';
import { fallbackResult, scoreFor } from '@emailverify/verification';
import { ACCOUNT } from './gateway-harness';

// Replies of the services behind the gateway, as the specs need them.

/** A valid, SMTP-confirmed address, built on what every result of the engine starts from. */
export function makeResult(overrides: Partial<BilledVerificationResult> = {}): BilledVerificationResult {
  return {
    ...fallbackResult('jane.doe@example.com'),
    status: 'valid',
    reason: 'accepted',
    score: scoreFor('valid', true),
    isDeliverable: true,
    mxRecords: ['mx1.example.com'],
    domainReputation: { mxIp: '192.0.2.10', isListed: false, blacklists: [], checked: true },
    smtpCheck: true,
    smtpResponse: '250 2.1.5 OK',
    responseTime: 412,
    validFormat: true,
    validDomain: true,
    validMx: true,
    smtpValid: true,
    creditsUsed: 1,
    cached: false,
    ...overrides,
  };
}

export const JOB_ID = '8f0c5a1e-2d34-4b8e-9a0e-5c1f6d7b2a90';

export function makeJob(overrides: Partial<FileJobView> = {}): FileJobView {
  return {
    jobId: JOB_ID,
    accountId: ACCOUNT,
    fileName: 'leads.csv',
    fileSize: 2048,
    status: 'running',
    emailColumn: 'Email',
    totalRows: 120,
    uniqueEmails: 100,
    estimatedCount: 100,
    totalChunks: 4,
    completedChunks: 1,
    failedChunks: 0,
    processedEmails: 25,
    waitingEmails: 0,
    counts: { valid: 20, invalid: 3, unknown: 1, risky: 1, disposable: 0, catchall: 0, role: 0 },
    creditsUsed: 24,
    createdAt: '2026-11-22T10:00:00.000Z',
    startedAt: '2026-11-22T10:00:01.000Z',
    completedAt: null,
    error: null,
    ...overrides,
  };
}
