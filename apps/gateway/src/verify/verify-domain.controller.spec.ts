import { type BilledDomainReport, DomainError, Subjects } from '@emailverify/contracts';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ACCOUNT, GatewayHarness } from '../testing/gateway-harness';
import { expectError, expectFieldError, payloadOf, STYLES } from '../testing/replies';

// GET /v1/verify/domain over HTTP, the verifier stood in for: what is checked at the edge (without a hop), what
// is asked, and how the report reaches the caller in each style.

const report = (domain: string): BilledDomainReport => ({
  domain,
  acceptsMail: true,
  reason: 'mx_found',
  mxRecords: [`mx.${domain}`],
  mxHosts: [{ host: `mx.${domain}`, preference: 10, addresses: ['192.0.2.10'] }],
  hasNullMx: false,
  implicitMx: false,
  isCatchall: null,
  isDisposable: false,
  isFree: false,
  domainAge: 42,
  domainReputation: {
    mxIp: '192.0.2.10',
    isListed: true,
    blacklists: ['zen.example'],
    checked: true,
    mxIps: [{ ip: '192.0.2.10', blacklists: ['zen.example'] }],
  },
  spf: { present: true, record: 'v=spf1 mx -all' },
  dmarc: { present: false, policy: null },
  responseTime: 12,
  creditsUsed: 1,
  cached: false,
});

const rendered = {
  domain: 'xn--bcher-kva.example',
  accepts_mail: true,
  reason: 'mx_found',
  mx_records: ['mx.xn--bcher-kva.example'],
  mx_hosts: [{ host: 'mx.xn--bcher-kva.example', preference: 10, addresses: ['192.0.2.10'] }],
  has_null_mx: false,
  implicit_mx: false,
  is_catchall: null,
  is_disposable: false,
  is_free: false,
  domain_age: 42,
  domain_reputation: {
    mx_ip: '192.0.2.10',
    is_listed: true,
    blacklists: ['zen.example'],
    checked: true,
    mx_ips: [{ ip: '192.0.2.10', blacklists: ['zen.example'] }],
  },
  spf: { present: true, record: 'v=spf1 mx -all' },
  dmarc: { present: false, policy: null },
  credits_used: 1,
  response_time: 12,
};

describe('GET /v1/verify/domain', () => {
  let gateway: GatewayHarness;

  beforeAll(async () => {
    gateway = await GatewayHarness.start();
  });
  afterAll(async () => gateway?.close());

  beforeEach(() => {
    gateway.reset();
    gateway.bus.answer(Subjects.verifyDomain, ({ domain }) => report(domain));
  });

  it.each(STYLES)(
    'asks the verifier for the punycode domain and renders the report (%s style)',
    async (style) => {
      const res = await gateway.call(
        `/v1/verify/domain?domain=${encodeURIComponent(' Bücher.Example ')}&check_smtp=1`,
        {
          style,
        },
      );
      expect(payloadOf(style, res)).toEqual(rendered);
      expect(gateway.bus.asked).toEqual([
        {
          subject: Subjects.verifyDomain,
          payload: { accountId: ACCOUNT, domain: 'xn--bcher-kva.example', checkSmtp: true },
          requestId: res.headers.get('x-request-id'),
        },
      ]);
    },
  );

  it.each(STYLES)(
    'refuses what is not a domain with 400 naming it, without asking (%s style)',
    async (style) => {
      for (const query of [
        '',
        'domain=',
        'domain=jane%40example.com',
        'domain=%5B192.0.2.1%5D',
        'domain=a&domain=b',
      ]) {
        expectFieldError(style, await gateway.call(`/v1/verify/domain?${query}`, { style }), 'domain');
      }
      expectFieldError(
        style,
        await gateway.call('/v1/verify/domain?domain=example.com&check_smtp=yes', { style }),
        'check_smtp',
      );
      expect(gateway.bus.asked).toEqual([]);
    },
  );

  it('passes on the refusal of short credits as 402 (current) and 403 (legacy)', async () => {
    gateway.bus.answer(Subjects.verifyDomain, () => {
      throw new DomainError('INSUFFICIENT_CREDITS', 'Not enough credits: 1 needed, 0 available');
    });
    expectError(
      'current',
      await gateway.call('/v1/verify/domain?domain=example.com'),
      402,
      'INSUFFICIENT_CREDITS',
    );
    expectError(
      'legacy',
      await gateway.call('/v1/verify/domain?domain=example.com', { style: 'legacy' }),
      403,
      'INSUFFICIENT_CREDITS',
    );
  });
});
