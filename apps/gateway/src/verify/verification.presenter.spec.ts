import { VERIFICATION_STATUSES, type VerificationStatus } from '@emailverify/contracts';
import { describe, expect, it } from 'vitest';
import { makeResult } from '../testing/factories';
import { BulkPresenter, DisposablePresenter, legacyStatus, SinglePresenter } from './verification.presenter';

describe('legacyStatus', () => {
  it('narrows the seven statuses to the four of the legacy style', () => {
    const narrowed = Object.fromEntries(
      VERIFICATION_STATUSES.map((status) => [status, legacyStatus(status)]),
    );
    expect(narrowed).toEqual({
      valid: 'valid',
      role: 'valid',
      invalid: 'invalid',
      disposable: 'invalid',
      unknown: 'unknown',
      risky: 'unknown',
      catchall: 'catchall',
    });
  });
});

describe('SinglePresenter', () => {
  it('renders every field of the current result, status as it is, in the documented order', () => {
    const result = makeResult({ status: 'role', reason: 'role_account', isRole: true, score: 0.6 });
    expect(JSON.stringify(SinglePresenter.current(result))).toBe(
      JSON.stringify({
        email: 'jane.doe@example.com',
        status: 'role',
        score: 0.6,
        is_deliverable: true,
        is_disposable: false,
        is_catchall: false,
        is_role: true,
        is_free: false,
        has_gravatar: false,
        gravatar_url: '',
        domain: 'example.com',
        domain_age: 0,
        mx_records: ['mx1.example.com'],
        domain_reputation: { mx_ip: '192.0.2.10', is_listed: false, blacklists: [], checked: true },
        smtp_check: true,
        reason: 'role_account',
        smtp_response: '250 2.1.5 OK',
        error_message: '',
        domain_suggestion: '',
        response_time: 412,
        credits_used: 1,
      }),
    );
  });

  it('renders the legacy result object with the narrowed status', () => {
    const result = makeResult({ status: 'role', reason: 'role_account', isRole: true, smtpValid: false });
    expect(SinglePresenter.legacy(result)).toEqual({
      email: 'jane.doe@example.com',
      status: 'valid',
      result: {
        deliverable: true,
        valid_format: true,
        valid_domain: true,
        valid_mx: true,
        disposable: false,
        role: true,
        catchall: false,
        free: false,
        smtp_valid: false,
      },
      score: 0.99,
      reason: null,
      credits_used: 1,
    });
  });

  it.each<[VerificationStatus, string, string | null]>([
    ['valid', 'accepted', null],
    ['role', 'role_account', null],
    ['catchall', 'catch_all', null],
    ['invalid', 'mailbox_not_found', 'mailbox_not_found'],
    ['disposable', 'disposable_domain', 'disposable_domain'],
    ['risky', 'domain_listed', 'domain_listed'],
    ['unknown', 'smtp_timeout', 'smtp_timeout'],
  ])(
    'gives a %s result the legacy reason %s -> %s (null when it narrows to valid or catch-all)',
    (status, reason, expected) => {
      const rendered = SinglePresenter.legacy(makeResult({ status, reason: reason as never })) as {
        reason: unknown;
      };
      expect(rendered.reason).toBe(expected);
    },
  );
});

describe('BulkPresenter', () => {
  const reply = {
    results: [
      makeResult({ email: 'a@example.com', status: 'valid' }),
      makeResult({ email: 'b@example.com', status: 'role', reason: 'role_account', isRole: true }),
      makeResult({
        email: 'c@example.com',
        status: 'disposable',
        reason: 'disposable_domain',
        creditsUsed: 0,
      }),
      makeResult({ email: 'd@example.com', status: 'invalid', reason: 'mailbox_not_found' }),
    ],
    creditsUsed: 3,
    processTimeMs: 950,
  };

  it('counts the statuses as they are in the current style', () => {
    expect(BulkPresenter.current(reply)).toEqual({
      results: [
        { email: 'a@example.com', status: 'valid', score: 0.99, is_deliverable: true, credits_used: 1 },
        { email: 'b@example.com', status: 'role', score: 0.99, is_deliverable: true, credits_used: 1 },
        { email: 'c@example.com', status: 'disposable', score: 0.99, is_deliverable: true, credits_used: 0 },
        { email: 'd@example.com', status: 'invalid', score: 0.99, is_deliverable: true, credits_used: 1 },
      ],
      total_emails: 4,
      valid_emails: 1,
      invalid_emails: 1,
      credits_used: 3,
      process_time: 950,
    });
  });

  it('counts the narrowed statuses in the legacy style, with the legacy item fields', () => {
    const legacy = BulkPresenter.legacy(reply) as Record<string, unknown> & { results: unknown[] };
    expect(legacy).toMatchObject({
      total_emails: 4,
      valid_emails: 2,
      invalid_emails: 2,
      credits_used: 3,
      process_time: 950,
    });
    expect(legacy.results[1]).toEqual({
      email: 'b@example.com',
      status: 'valid',
      score: 0.99,
      is_deliverable: true,
      is_disposable: false,
      is_catchall: false,
      is_role: true,
      is_free: false,
      domain: 'example.com',
      check_smtp: true,
      reason: null,
      credits_used: 1,
    });
    expect(legacy.results[2]).toMatchObject({ status: 'invalid', reason: 'disposable_domain' });
  });
});

describe('DisposablePresenter', () => {
  it('renders the same fields in both styles', () => {
    const check = {
      email: 'someone@mailinator.com',
      domain: 'mailinator.com',
      isDisposable: true,
      checkedAt: '2026-11-22T10:00:00.000Z',
    };
    const body = {
      email: 'someone@mailinator.com',
      domain: 'mailinator.com',
      is_disposable: true,
      checked_at: '2026-11-22T10:00:00.000Z',
    };
    expect(DisposablePresenter.current(check)).toEqual(body);
    expect(DisposablePresenter.legacy(check)).toEqual(body);
  });
});
