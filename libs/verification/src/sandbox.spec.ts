import { DomainError, REASONS, type VerificationResult } from '@emailverify/contracts';
import { describe, expect, it } from 'vitest';
import { VerificationEngine } from './engine';
import {
  SANDBOX_BLOCKLIST,
  SANDBOX_MX_HOST,
  SANDBOX_SUGGESTION,
  SANDBOX_TRIGGERS,
  sandboxDisposable,
  sandboxDomainReport,
  sandboxTrigger,
  sandboxVerdict,
} from './sandbox';
import {
  ENGINE_TEST_OPTIONS,
  FakeClock,
  FakeResolver,
  fakeDialer,
  fakeFetch,
  sequenceRandom,
} from './testing/fakes';

/** An engine whose every dependency refuses to be used: a sandbox answer must never reach one. */
function engineWithoutNetwork(): VerificationEngine {
  const dialer = fakeDialer({});
  return new VerificationEngine(ENGINE_TEST_OPTIONS, {
    resolver: new FakeResolver({}),
    dial: dialer.dial,
    fetch: fakeFetch({}).fetch,
    clock: new FakeClock(),
    random: sequenceRandom(),
  });
}

const summary = (r: VerificationResult) => ({ status: r.status, reason: r.reason, score: r.score });

describe('sandbox trigger table', () => {
  it.each(SANDBOX_TRIGGERS.map((t) => [t.trigger, t] as const))(
    '%s@ and x+%s@ answer the trigger, in any case, with or without check_smtp',
    (name, trigger) => {
      for (const checkSmtp of [false, true]) {
        for (const address of [
          `${name}@example.com`,
          `jane+${name}@example.com`,
          `${name.toUpperCase()}@Example.COM`,
          `${name}+anything@example.com`,
        ]) {
          const r = sandboxVerdict(address, { checkSmtp });
          expect(r.status, address).toBe(trigger.status);
          expect(r.reason, address).toBe(
            checkSmtp && trigger.smtpReason && trigger.routing === 'deliverable'
              ? trigger.smtpReason
              : trigger.reason,
          );
          expect(r.validFormat).toBe(true);
          expect(r.email).toBe(address.replace(/@.*/, '@example.com'));
          expect(r.domain).toBe('example.com');
        }
      }
    },
  );

  it('answers valid for any other well-formed address: mx_found 0.9, accepted 0.99 with check_smtp', () => {
    for (const address of ['jane.doe@example.com', 'x+nothing@example.org', '"a b"@example.net']) {
      expect(summary(sandboxVerdict(address, { checkSmtp: false }))).toEqual({
        status: 'valid',
        reason: 'mx_found',
        score: 0.9,
      });
      const smtp = sandboxVerdict(address, { checkSmtp: true });
      expect(summary(smtp)).toEqual({ status: 'valid', reason: 'accepted', score: 0.99 });
      expect(smtp).toMatchObject({
        isDeliverable: true,
        smtpCheck: true,
        smtpValid: true,
        validDomain: true,
        validMx: true,
        mxRecords: [SANDBOX_MX_HOST],
      });
    }
    // Lists do not speak in the sandbox: a known disposable or role address is valid unless a trigger says so.
    expect(sandboxVerdict('info@mailinator.com', { checkSmtp: false }).status).toBe('valid');
  });

  it('lets the +tag win over the local part, and the local part speak when the tag is no trigger', () => {
    expect(sandboxTrigger('invalid+catchall').trigger).toBe('catchall');
    expect(sandboxTrigger('role+x').trigger).toBe('role');
    expect(sandboxTrigger('"disposable"').trigger).toBe('disposable');
    expect(sandboxTrigger('valid2').trigger).toBe('valid');
  });

  it('sets the flags, reputation and suggestion each trigger documents', () => {
    const at = (local: string, domain = 'example.com') =>
      sandboxVerdict(`${local}@${domain}`, { checkSmtp: true });
    expect(at('x+catchall')).toMatchObject({ isCatchall: true, isDeliverable: true, score: 0.7 });
    expect(at('x+role')).toMatchObject({ isRole: true, isDeliverable: true, score: 0.6 });
    expect(at('x+free')).toMatchObject({ isFree: true, status: 'valid' });
    expect(at('x+disposable')).toMatchObject({ isDisposable: true, smtpCheck: false, score: 0.3 });
    expect(at('x+risky').domainReputation).toEqual({
      mxIp: expect.any(String),
      isListed: true,
      blacklists: [SANDBOX_BLOCKLIST],
      checked: true,
    });
    expect(at('x+invalid')).toMatchObject({
      isDeliverable: false,
      smtpCheck: true,
      smtpValid: false,
      smtpResponse: expect.stringMatching(/^550 /),
    });
    expect(at('x+no-domain')).toMatchObject({ validDomain: false, validMx: false, mxRecords: [] });
    expect(at('x+null-mx')).toMatchObject({ validDomain: true, validMx: false, isDeliverable: false });
    // The lists' suggestion where they have one, else the fixed one.
    expect(at('typo', 'gmial.com').domainSuggestion).toBe('gmail.com');
    expect(at('typo', 'example.com').domainSuggestion).toBe(SANDBOX_SUGGESTION);
    expect(at('valid', 'gmial.com').domainSuggestion).toBe('');
    for (const local of ['unknown', 'timeout', 'capacity', 'dns-error', 'failed'])
      expect(at(local)).toMatchObject({ status: 'unknown', isDeliverable: false, score: 0.5 });
  });

  it('has a trigger for every reason the engine gives a well-formed address', () => {
    const covered = new Set(SANDBOX_TRIGGERS.flatMap((t) => [t.reason, t.smtpReason]));
    const missing = REASONS.filter((r) => r !== 'invalid_syntax' && r !== 'missing_email' && !covered.has(r));
    expect(missing).toEqual([]);
    expect(new Set(SANDBOX_TRIGGERS.map((t) => t.trigger)).size).toBe(SANDBOX_TRIGGERS.length);
  });

  it('answers in the shape of the live engine, and refuses malformed input exactly as it does', async () => {
    const engine = engineWithoutNetwork();
    for (const input of ['not an address', '', 'a@@b', 'jane@exa mple.com', 42]) {
      const live = await engine.verify(input as string, { checkSmtp: true });
      expect(sandboxVerdict(input, { checkSmtp: true })).toEqual({ ...live, responseTime: 0 });
    }
    const live = await engine.verify('jane@example.com', { checkSmtp: false });
    expect(Object.keys(sandboxVerdict('jane@example.com', { checkSmtp: false })).sort()).toEqual(
      Object.keys(live).sort(),
    );
  });

  it('splits normalised addresses as a file chunk gives them', () => {
    expect(sandboxVerdict('x+role@example.com', { checkSmtp: false, normalised: true }).status).toBe('role');
  });
});

describe('sandboxDisposable', () => {
  it('is disposable only for the disposable trigger, and refuses bad syntax as the live check does', () => {
    expect(sandboxDisposable('Disposable@Example.com')).toEqual({
      email: 'disposable@example.com',
      domain: 'example.com',
      isDisposable: true,
    });
    expect(sandboxDisposable('x+disposable@example.com').isDisposable).toBe(true);
    expect(sandboxDisposable('jane@mailinator.com').isDisposable).toBe(false);
    expect(() => sandboxDisposable('nope')).toThrow(DomainError);
    expect(() => sandboxDisposable('nope')).toThrow(expect.objectContaining({ code: 'INVALID_EMAIL' }));
  });
});

describe('sandboxDomainReport', () => {
  const report = (domain: string, checkSmtp = true) => sandboxDomainReport(domain, { checkSmtp });

  it('reports a domain that accepts mail unless its first label names another outcome', () => {
    expect(report('example.com')).toMatchObject({
      domain: 'example.com',
      acceptsMail: true,
      reason: 'mx_found',
      mxRecords: [SANDBOX_MX_HOST],
      isCatchall: false,
      hasNullMx: false,
    });
    expect(report('example.com', false).isCatchall).toBeNull();
    expect(report('catchall.example.com').isCatchall).toBe(true);
    expect(report('timeout.example.com').isCatchall).toBeNull();
    expect(report('disposable.example.com').isDisposable).toBe(true);
    expect(report('risky.example.com').domainReputation).toMatchObject({
      isListed: true,
      blacklists: [SANDBOX_BLOCKLIST],
    });
  });

  it('reports the routing outcomes', () => {
    expect(report('no-domain.example.com')).toMatchObject({
      acceptsMail: false,
      reason: 'domain_not_found',
      mxHosts: [],
      spf: { present: false, record: null },
    });
    expect(report('null-mx.example.com')).toMatchObject({ reason: 'null_mx', hasNullMx: true });
    expect(report('no-mx.example.com').reason).toBe('no_mx_records');
    expect(report('dns-error.example.com').reason).toBe('dns_error');
    expect(report('Bücher.example').domain).toBe('xn--bcher-kva.example');
  });

  it('refuses what is not a domain as a live key does', () => {
    for (const input of ['jane@example.com', '[127.0.0.1]', '', 'a..b'])
      expect(() => report(input)).toThrow(expect.objectContaining({ code: 'INVALID_REQUEST' }));
  });
});
