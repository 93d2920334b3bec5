import { eventually } from '@emailverify/testing';
import { describe, expect, it } from 'vitest';
import type { MailHost } from '../dns';
import {
  FakeClock,
  fakeDialer,
  mailboxHost,
  sequenceRandom,
  type HostBehaviour,
  type ScriptedHost,
} from '../testing/fakes';
import { ProviderRules } from '../providers';
import { SmtpProber, type SmtpOutcome, type SmtpProbeOptions } from './probe';

const OPTIONS: SmtpProbeOptions = {
  port: 25,
  heloName: 'probe.verifier.test',
  mailFrom: 'verify@verifier.test',
  connectTimeoutMs: 200,
  commandTimeoutMs: 200,
  maxConcurrencyPerMx: 2,
  semaphoreTimeoutMs: 50,
  maxHosts: 3,
  catchAllTtlMs: 60_000,
  allowPrivateNetworks: true,
};

// TEST-NET addresses: only ever handed to the fake dialer.
const HOSTS: MailHost[] = [
  { exchange: 'mx1.example.com', priority: 10, addresses: ['192.0.2.1'] },
  { exchange: 'mx2.example.com', priority: 20, addresses: ['192.0.2.2'] },
  { exchange: 'mx3.example.com', priority: 30, addresses: ['192.0.2.3'] },
  { exchange: 'mx4.example.com', priority: 40, addresses: ['192.0.2.4'] },
];

function setup(
  hosts: Record<string, HostBehaviour>,
  options: Partial<SmtpProbeOptions> = {},
  rules?: ProviderRules,
) {
  const dialer = fakeDialer(hosts);
  const clock = new FakeClock();
  const prober = new SmtpProber(
    { ...OPTIONS, ...options },
    { dial: dialer.dial, clock, random: sequenceRandom([0, 0.5, 0.99]), rules },
  );
  const probe = (email = 'alice@example.com', hostList: MailHost[] = HOSTS) =>
    prober.probe({ email, domain: email.slice(email.lastIndexOf('@') + 1), hosts: hostList });
  return { dialer, clock, prober, probe };
}

function kindAndReason(outcome: SmtpOutcome): string {
  return outcome.kind === 'accepted'
    ? `accepted catchAll=${String(outcome.catchAll)}`
    : `${outcome.kind} ${outcome.reason}`;
}

describe('SmtpProber network rule', () => {
  it('never dials a non-public address without allowPrivateNetworks, whatever hosts it is given', async () => {
    const hosts: MailHost[] = [
      { exchange: 'mx1.example.com', priority: 10, addresses: ['127.0.0.5'] },
      { exchange: 'mx2.example.com', priority: 20, addresses: ['::ffff:10.0.0.1'] },
    ];
    const { dialer, probe } = setup(
      {
        '127.0.0.5': mailboxHost({ mailboxes: ['alice'] }),
        '::ffff:10.0.0.1': mailboxHost({ mailboxes: ['alice'] }),
      },
      { allowPrivateNetworks: false },
    );
    const outcome = await probe('alice@example.com', hosts);
    expect(kindAndReason(outcome)).toBe('unknown smtp_unreachable');
    expect(outcome.kind === 'unknown' && outcome.message).toMatch(
      /127\.0\.0\.5 is a non-public address \(loopback\)/,
    );
    expect(dialer.attempts.size).toBe(0);
  });
});

describe('SmtpProber conversation', () => {
  it('speaks EHLO, MAIL FROM, RCPT, a catch-all RCPT and QUIT, and closes the socket', async () => {
    const { dialer, probe } = setup({ '192.0.2.1': mailboxHost({ mailboxes: ['alice'] }) });
    const outcome = await probe();
    expect(outcome).toEqual({
      kind: 'accepted',
      catchAll: false,
      response: '250 2.1.5 Recipient OK',
      conversed: true,
    });
    expect(dialer.transcripts.get('192.0.2.1')).toEqual([
      'EHLO probe.verifier.test',
      'MAIL FROM:<verify@verifier.test>',
      'RCPT TO:<alice@example.com>',
      // sequenceRandom([0, 0.5, 0.99]) picks alphabet[0], [18], [35] in turn.
      'RCPT TO:<as9as9as9as9as9as9as@example.com>',
      'QUIT',
    ]);
    expect(dialer.open()).toBe(0);
  });

  it('reports catch-all when the random address is accepted too, and reuses that verdict per domain', async () => {
    const { dialer, probe } = setup({ '192.0.2.1': mailboxHost({ catchAll: true }) });
    expect(kindAndReason(await probe('alice@example.com'))).toBe('accepted catchAll=true');
    expect(kindAndReason(await probe('bob@example.com'))).toBe('accepted catchAll=true');
    const rcpts = dialer.transcripts.get('192.0.2.1')?.filter((line) => line.startsWith('RCPT'));
    expect(rcpts).toEqual(['RCPT TO:<bob@example.com>']);
  });

  it('asks the catch-all probe again after RSET when it gets 4xx, and leaves it open (uncached) after a second', async () => {
    const rcpt = (address: string) =>
      address.startsWith('alice@') ? '250 ok\r\n' : '452 4.5.3 too many recipients\r\n';
    const { dialer, probe } = setup({ '192.0.2.1': mailboxHost({ rcpt }) });
    expect(kindAndReason(await probe())).toBe('accepted catchAll=undefined');
    await probe();
    const transcript = dialer.transcripts.get('192.0.2.1') ?? [];
    const rcpts = transcript.filter((l) => l.startsWith('RCPT'));
    expect(rcpts).toHaveLength(3);
    expect(rcpts[2]).toBe(rcpts[1]);
    expect(transcript.slice(transcript.indexOf('RSET'), transcript.indexOf('RSET') + 3)).toEqual([
      'RSET',
      'MAIL FROM:<verify@verifier.test>',
      rcpts[2],
    ]);
  });

  it('takes the answer of the catch-all probe asked again after RSET', async () => {
    let probes = 0;
    const rcpt = (address: string) => {
      if (address.startsWith('alice@')) return '250 ok\r\n';
      return ++probes === 1 ? '452 4.5.3 too many recipients\r\n' : '250 ok\r\n';
    };
    const { probe } = setup({ '192.0.2.1': mailboxHost({ rcpt }) });
    expect(kindAndReason(await probe())).toBe('accepted catchAll=true');
  });

  it.each([
    ['250 2.1.5 ok', 'accepted catchAll=false'],
    ['251 2.1.5 user not local; will forward', 'accepted catchAll=false'],
    ['550 5.1.1 no such user', 'rejected mailbox_not_found'],
    ['550 no such user', 'rejected mailbox_not_found'],
    ['551 user not local', 'rejected mailbox_not_found'],
    ['553 mailbox name not allowed', 'rejected mailbox_not_found'],
    ['554 5.1.1 unknown recipient', 'rejected mailbox_not_found'],
    ['552 5.2.2 mailbox full', 'rejected mailbox_full'],
    ['554 5.2.2 over quota', 'rejected mailbox_full'],
    ['452 4.2.2 mailbox full', 'unknown mailbox_full'],
    ['452 too many recipients', 'unknown mailbox_full'],
    ['450 4.2.2 over quota', 'unknown mailbox_full'],
    ['450 4.7.1 greylisted, try again', 'unknown greylisted'],
    ['451 local error', 'unknown greylisted'],
    ['550 5.7.1 client host blocked', 'unknown smtp_blocked'],
    ['554 5.7.1 access denied', 'unknown smtp_blocked'],
    ['554 transaction failed', 'unknown smtp_blocked'],
  ])('maps RCPT %j to %s', async (reply, expected) => {
    const rcpt = (address: string) =>
      address.startsWith('alice@') ? `${reply}\r\n` : '550 5.1.1 nobody\r\n';
    const { probe } = setup({ '192.0.2.1': mailboxHost({ rcpt }) });
    const outcome = await probe();
    expect(kindAndReason(outcome)).toBe(expected);
    expect(outcome.response).toBe(reply);
  });

  it('moves on to the next host when RCPT gets 421', async () => {
    const { probe } = setup({
      '192.0.2.1': mailboxHost({ rcpt: '421 4.3.2 shutting down\r\n' }),
      '192.0.2.2': mailboxHost({ mailboxes: ['alice'] }),
    });
    expect(kindAndReason(await probe())).toBe('accepted catchAll=false');
  });

  it('falls back to HELO when EHLO is refused', async () => {
    const { dialer, probe } = setup({
      '192.0.2.1': mailboxHost({ mailboxes: ['alice'], ehlo: '502 5.5.2 no ESMTP\r\n' }),
    });
    expect(kindAndReason(await probe())).toBe('accepted catchAll=false');
    expect(dialer.transcripts.get('192.0.2.1')?.slice(0, 3)).toEqual([
      'EHLO probe.verifier.test',
      'HELO probe.verifier.test',
      'MAIL FROM:<verify@verifier.test>',
    ]);
  });

  it('reports smtp_blocked when HELO is refused too', async () => {
    const { probe } = setup({
      '192.0.2.1': mailboxHost({ ehlo: '550 go away\r\n', helo: '550 5.7.1 go away\r\n' }),
      '192.0.2.2': mailboxHost({ mailboxes: ['alice'] }),
    });
    const outcome = await probe();
    expect(kindAndReason(outcome)).toBe('unknown smtp_blocked');
    expect(outcome.response).toBe('550 5.7.1 go away');
  });

  it('reports a 5xx greeting as smtp_blocked without trying other hosts', async () => {
    const { dialer, probe } = setup({
      '192.0.2.1': mailboxHost({ banner: '554 5.7.1 no probes from you\r\n' }),
      '192.0.2.2': mailboxHost({ mailboxes: ['alice'] }),
    });
    const outcome = await probe();
    expect(kindAndReason(outcome)).toBe('unknown smtp_blocked');
    expect(outcome.conversed).toBe(true);
    expect(dialer.attempts.get('192.0.2.2')).toBeUndefined();
  });

  it('reports MAIL FROM refused with 5xx as smtp_blocked', async () => {
    const { probe } = setup({ '192.0.2.1': mailboxHost({ mail: '553 5.7.1 sender rejected\r\n' }) });
    expect(kindAndReason(await probe())).toBe('unknown smtp_blocked');
  });

  it('moves on when MAIL FROM is deferred with 4xx', async () => {
    const { probe } = setup({
      '192.0.2.1': mailboxHost({ mail: '451 4.3.0 try later\r\n' }),
      '192.0.2.2': mailboxHost({ mailboxes: ['alice'] }),
    });
    expect(kindAndReason(await probe())).toBe('accepted catchAll=false');
  });

  it('asks for SMTPUTF8 when the mailbox name is not ASCII and the server offers it', async () => {
    const { dialer, probe } = setup({ '192.0.2.1': mailboxHost({ mailboxes: ['josé'] }) });
    expect(kindAndReason(await probe('josé@example.com'))).toBe('accepted catchAll=false');
    expect(dialer.transcripts.get('192.0.2.1')?.[1]).toBe('MAIL FROM:<verify@verifier.test> SMTPUTF8');
  });

  it('reads multi-line replies delivered in odd fragments', async () => {
    const host: ScriptedHost = {
      ...mailboxHost({ mailboxes: ['alice'] }),
      banner: ['220-mx.example.com ESMTP\r', '\n220-more banner\r\n2', '20 ready\r\n'],
    };
    const { probe } = setup({ '192.0.2.1': host });
    expect(kindAndReason(await probe())).toBe('accepted catchAll=false');
  });
});

describe('SmtpProber provider rules', () => {
  const rules = new ProviderRules(
    [
      { name: 'accepts all', mx: ['*.example.com'], catchAllProbe: false, acceptsAnyRecipient: true },
      { name: 'no probe', mx: ['mx.example.org'], catchAllProbe: false, acceptsAnyRecipient: false },
    ],
    [],
  );
  const orgHost: MailHost = { exchange: 'mx.example.org', priority: 10, addresses: ['192.0.2.9'] };

  it('reports catch-all for an accepted mailbox at a provider that accepts every recipient, without a probe RCPT', async () => {
    const { dialer, probe } = setup({ '192.0.2.1': mailboxHost({ mailboxes: ['alice'] }) }, {}, rules);
    expect(kindAndReason(await probe())).toBe('accepted catchAll=true');
    expect(dialer.transcripts.get('192.0.2.1')?.filter((l) => l.startsWith('RCPT'))).toEqual([
      'RCPT TO:<alice@example.com>',
    ]);
  });

  it('still reports a refused mailbox there as refused', async () => {
    const { probe } = setup({ '192.0.2.1': mailboxHost({ mailboxes: ['alice'] }) }, {}, rules);
    expect(kindAndReason(await probe('nobody@example.com'))).toBe('rejected mailbox_not_found');
  });

  it('skips the catch-all probe where the rule says so', async () => {
    const { dialer, probe } = setup({ '192.0.2.9': mailboxHost({ mailboxes: ['alice'] }) }, {}, rules);
    expect(kindAndReason(await probe('alice@example.org', [orgHost]))).toBe('accepted catchAll=undefined');
    expect(dialer.transcripts.get('192.0.2.9')?.filter((l) => l.startsWith('RCPT'))).toHaveLength(1);
  });

  it("caps sessions to a host at its rule's maxConnections instead of the general cap", async () => {
    let releaseRcpt: () => void = () => undefined;
    const held = new Promise<void>((resolve) => (releaseRcpt = resolve));
    const host = mailboxHost({ catchAll: true });
    const holding: ScriptedHost = {
      ...host,
      respond: (line) =>
        line === 'RCPT TO:<alice@example.com>' ? held.then(() => '250 ok\r\n') : host.respond(line),
    };
    const capped = new ProviderRules(
      [
        {
          name: 'one',
          mx: ['mx1.example.com'],
          catchAllProbe: true,
          acceptsAnyRecipient: false,
          maxConnections: 1,
        },
      ],
      [],
    );
    const { dialer, probe } = setup({ '192.0.2.1': holding }, { maxConcurrencyPerMx: 5 }, capped);
    const first = probe('alice@example.com', [HOSTS[0]!]);
    await eventually(
      () => expect(dialer.transcripts.get('192.0.2.1') ?? []).toContain('RCPT TO:<alice@example.com>'),
      { intervalMs: 5 },
    );
    expect(kindAndReason(await probe('bob@example.com', [HOSTS[0]!]))).toBe(
      'unknown mx_only_verification_semaphore_timeout',
    );
    releaseRcpt();
    await first;
  });
});

describe('SmtpProber host failover', () => {
  it('tries the next MX when the first refuses the connection', async () => {
    const { dialer, probe } = setup({
      '192.0.2.1': 'refused',
      '192.0.2.2': mailboxHost({ mailboxes: ['alice'] }),
    });
    expect(kindAndReason(await probe())).toBe('accepted catchAll=false');
    expect(dialer.attempts.get('192.0.2.1')).toBe(1);
  });

  it('tries the next MX when the first greets with 421', async () => {
    const { probe } = setup({
      '192.0.2.1': mailboxHost({ banner: '421 4.3.2 too busy\r\n' }),
      '192.0.2.2': mailboxHost({ mailboxes: ['alice'] }),
    });
    expect(kindAndReason(await probe())).toBe('accepted catchAll=false');
  });

  it('gives smtp_unreachable when every host refuses, and tries at most three', async () => {
    const { dialer, probe } = setup({});
    const outcome = await probe();
    expect(kindAndReason(outcome)).toBe('unknown smtp_unreachable');
    expect(outcome.conversed).toBe(false);
    expect([...dialer.attempts.keys()]).toEqual(['192.0.2.1', '192.0.2.2', '192.0.2.3']);
  });

  it('gives smtp_unreachable with the last reply when every host says 421', async () => {
    const busy = mailboxHost({ banner: '421 4.7.0 busy\r\n' });
    const { probe } = setup({ '192.0.2.1': busy, '192.0.2.2': busy, '192.0.2.3': busy });
    const outcome = await probe();
    expect(kindAndReason(outcome)).toBe('unknown smtp_unreachable');
    expect(outcome.response).toBe('421 4.7.0 busy');
    expect(outcome.conversed).toBe(true);
  });

  it('gives smtp_timeout when no host accepts the connection in time', async () => {
    const { probe } = setup({ '192.0.2.1': 'timeout', '192.0.2.2': 'timeout', '192.0.2.3': 'timeout' });
    expect(kindAndReason(await probe())).toBe('unknown smtp_timeout');
  });

  it('gives smtp_timeout when hosts connect but never greet', async () => {
    const silent: ScriptedHost = { banner: undefined, respond: () => undefined };
    const { dialer, probe } = setup({ '192.0.2.1': silent, '192.0.2.2': silent, '192.0.2.3': silent });
    expect(kindAndReason(await probe())).toBe('unknown smtp_timeout');
    expect(dialer.open()).toBe(0);
  });

  it('mixes refusals and timeouts into smtp_unreachable', async () => {
    const { probe } = setup({ '192.0.2.1': 'timeout', '192.0.2.2': 'refused', '192.0.2.3': 'timeout' });
    expect(kindAndReason(await probe())).toBe('unknown smtp_unreachable');
  });

  it('moves on from a host that speaks garbage', async () => {
    const garbage: ScriptedHost = { banner: 'SSH-2.0-OpenSSH_9.6\r\n', respond: () => undefined };
    const { probe } = setup({ '192.0.2.1': garbage, '192.0.2.2': mailboxHost({ mailboxes: ['alice'] }) });
    expect(kindAndReason(await probe())).toBe('accepted catchAll=false');
  });

  it('moves on from a host that hangs up mid-conversation', async () => {
    const { dialer, probe } = setup({
      '192.0.2.1': { ...mailboxHost(), hangUpOn: 'MAIL' },
      '192.0.2.2': mailboxHost({ mailboxes: ['alice'] }),
    });
    expect(kindAndReason(await probe())).toBe('accepted catchAll=false');
    expect(dialer.open()).toBe(0);
  });

  it('moves on from a host that stops answering mid-conversation', async () => {
    const { dialer, probe } = setup({
      '192.0.2.1': mailboxHost({ rcpt: () => undefined }),
      '192.0.2.2': mailboxHost({ mailboxes: ['alice'] }),
    });
    expect(kindAndReason(await probe())).toBe('accepted catchAll=false');
    expect(dialer.open()).toBe(0);
  });
});

describe('SmtpProber per-host concurrency cap', () => {
  it('answers mx_only_verification_semaphore_timeout when no slot frees in time, and recovers after', async () => {
    let releaseRcpt: () => void = () => undefined;
    const held = new Promise<void>((resolve) => (releaseRcpt = resolve));
    const host = mailboxHost({
      rcpt: (address) => (address.startsWith('alice@') ? undefined : '550 5.1.1 nobody\r\n'),
    });
    const holding: ScriptedHost = {
      ...host,
      respond: (line) =>
        line === 'RCPT TO:<alice@example.com>' ? held.then(() => '250 ok\r\n') : host.respond(line),
    };
    const { dialer, probe } = setup({ '192.0.2.1': holding }, { maxConcurrencyPerMx: 1 });
    const first = probe();
    await eventually(
      () => expect(dialer.transcripts.get('192.0.2.1') ?? []).toContain('RCPT TO:<alice@example.com>'),
      { intervalMs: 5 },
    );

    const second = await probe('bob@example.com');
    expect(second).toMatchObject({
      kind: 'unknown',
      reason: 'mx_only_verification_semaphore_timeout',
      conversed: false,
    });
    expect(dialer.attempts.get('192.0.2.1')).toBe(1);

    releaseRcpt();
    expect(kindAndReason(await first)).toBe('accepted catchAll=false');
    expect(kindAndReason(await probe('carol@example.com'))).toBe('rejected mailbox_not_found');
  });
});
