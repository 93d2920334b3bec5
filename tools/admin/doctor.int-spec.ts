import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { MailWorld, mailWorldEnv, SocksServer } from '@emailverify/testing';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';

const run = promisify(execFile);

const HELO = 'probe.verifier.test';
/** A zone of the world that lists nothing; the listed case uses a zone of its own. */
const CLEAN_ZONE = 'dnsbl.world.test';

interface Check {
  check: string;
  status: string;
  message: string;
  advice: string;
}

describe('npm run admin -- doctor, against the loopback mail world', () => {
  let world: MailWorld;

  beforeAll(async () => {
    world = await MailWorld.start();
    world
      .domain('normal.test', {
        mx: [{ priority: 10, host: 'mx.normal.test', smtp: { mailboxes: ['alice'] } }],
      })
      .domain('closed.test', { mx: [{ priority: 10, host: 'mx.closed.test', smtp: 'refused' }] })
      .domain(HELO, { a: 'no-smtp' });
    await world.ready();
  });
  afterAll(async () => world?.stop());
  beforeEach(() => {
    // The egress address of every connection on loopback is 127.0.0.1: its PTR names the HELO name.
    world.ptr('127.0.0.1', HELO);
    world.resetCounters();
  });

  /**
   * Only the world's servers: DNS_SERVERS is the world's DNS server (so the default domain and blocklists
   * would be asked of it, never of the internet), and the blocklist zone is one the world serves.
   */
  function env(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
    return {
      ...mailWorldEnv(world),
      SMTP_HELO_NAME: HELO,
      DNSBL_IP_ZONES: CLEAN_ZONE,
      ...extra,
    };
  }

  async function doctor(
    environment: NodeJS.ProcessEnv,
    ...args: string[]
  ): Promise<{ code: number; out: string; err: string }> {
    const entry = path.join(process.cwd(), 'dist/tools/admin/main.js');
    try {
      const { stdout, stderr } = await run(process.execPath, [entry, 'doctor', ...args], {
        env: environment,
      });
      return { code: 0, out: stdout, err: stderr };
    } catch (e) {
      const err = e as { code: number; stdout: string; stderr: string };
      return { code: err.code, out: err.stdout, err: err.stderr };
    }
  }

  async function checks(environment: NodeJS.ProcessEnv, ...args: string[]) {
    const res = await doctor(environment, ...args, '--json');
    const parsed = JSON.parse(res.out) as { ok: boolean; checks: Check[] };
    const status = Object.fromEntries(parsed.checks.map((c) => [c.check, c.status]));
    const byName = Object.fromEntries(parsed.checks.map((c) => [c.check, c]));
    return { code: res.code, ok: parsed.ok, checks: parsed.checks, status, byName };
  }

  const allOk = { dns: 'ok', smtp: 'ok', helo_name: 'ok', ptr: 'ok', dnsbl: 'ok' };

  it('reports every check ok in plain text, one line each, and exits 0', async () => {
    const res = await doctor(env(), '--domain', 'normal.test');
    expect(res.err).toBe('');
    expect(res.code).toBe(0);
    const lines = res.out.trimEnd().split('\n');
    expect(lines.map((l) => l.split(/\s+/).slice(0, 2).join(' '))).toEqual([
      'ok dns',
      'ok smtp',
      'ok helo_name',
      'ok ptr',
      'ok dnsbl',
    ]);
    expect(res.out).toContain(
      `mx.normal.test (${world.hostAddress('mx.normal.test')}) port ${world.smtpPort}`,
    );
    expect(res.out).toContain(`127.0.0.1 has PTR ${HELO}`);
    // A banner, EHLO and QUIT: never a MAIL FROM or RCPT.
    expect(world.smtpTranscript('mx.normal.test')).toEqual([`EHLO ${HELO}`, 'QUIT']);
    expect(world.dnsQueries(`1.0.0.127.${CLEAN_ZONE}`, 'A')).toBeGreaterThan(0);
  });

  it('prints JSON naming each check with --json', async () => {
    const res = await checks(env(), '--domain', 'normal.test');
    expect(res.code).toBe(0);
    expect(res.ok).toBe(true);
    expect(res.checks.map((c) => c.check)).toEqual(['dns', 'smtp', 'helo_name', 'ptr', 'dnsbl']);
    for (const check of res.checks) {
      expect(check).toEqual({
        check: expect.any(String),
        status: 'ok',
        message: expect.any(String),
        advice: '',
      });
    }
  });

  it('tries the host --mx names instead of the MX of the domain', async () => {
    const res = await checks(env(), '--domain', 'normal.test', '--mx', 'mx.normal.test');
    expect(res.status).toEqual(allOk);
    expect(world.smtpConnections('mx.normal.test')).toBe(1);
  });

  it('fails only the smtp check, with what to do, when port 25 of the MX is closed', async () => {
    const res = await checks(env(), '--domain', 'closed.test');
    expect(res.code).toBe(1);
    expect(res.ok).toBe(false);
    expect(res.status).toEqual({ ...allOk, smtp: 'fail' });
    expect(res.byName.smtp!.message).toContain('mx.closed.test');
    expect(res.byName.smtp!.message).toContain('ECONNREFUSED');
    expect(res.byName.smtp!.advice).toContain('port 25');

    const text = await doctor(env(), '--domain', 'closed.test');
    expect(text.code).toBe(1);
    expect(text.out).toMatch(/^FAIL {2}smtp .*; to fix: /m);
  });

  it('fails only the helo_name check when SMTP_HELO_NAME does not resolve', async () => {
    const missing = 'gone.verifier.test';
    world.ptr('127.0.0.1', missing);
    const res = await checks(env({ SMTP_HELO_NAME: missing }), '--domain', 'normal.test');
    expect(res.code).toBe(1);
    expect(res.status).toEqual({ ...allOk, helo_name: 'fail' });
    expect(res.byName.helo_name!.message).toBe(`SMTP_HELO_NAME ${missing} does not resolve (NXDOMAIN)`);
  });

  it('fails only the ptr check when the PTR of the egress address names another host', async () => {
    world.ptr('127.0.0.1', 'elsewhere.test');
    const res = await checks(env(), '--domain', 'normal.test');
    expect(res.status).toEqual({ ...allOk, ptr: 'fail' });
    expect(res.byName.ptr!.message).toContain('elsewhere.test');
  });

  it('fails only the dnsbl check, with the listing reason, when the egress address is listed', async () => {
    world.listIp('blocklist.world.test', '127.0.0.1');
    const res = await checks(
      env({ DNSBL_IP_ZONES: `${CLEAN_ZONE},blocklist.world.test` }),
      '--domain',
      'normal.test',
    );
    expect(res.code).toBe(1);
    expect(res.status).toEqual({ ...allOk, dnsbl: 'fail' });
    expect(res.byName.dnsbl!.message).toBe(
      'the egress address 127.0.0.1 is listed on blocklist.world.test (127.0.0.2: 127.0.0.1 listed in blocklist.world.test)',
    );
  });

  it('checks the address --egress-ip gives instead of the local one', async () => {
    const res = await checks(env(), '--domain', 'normal.test', '--egress-ip', '127.0.0.3');
    expect(res.status).toEqual({ ...allOk, ptr: 'fail' });
    expect(res.byName.ptr!.message).toBe('the egress address 127.0.0.3 has no PTR record');
    expect(world.dnsQueries(`3.0.0.127.${CLEAN_ZONE}`, 'A')).toBeGreaterThan(0);
  });

  it('fails the dns check when the DNS servers say a domain that exists does not', async () => {
    const res = await checks(env(), '--domain', 'unknown.test');
    expect(res.status.dns).toBe('fail');
    expect(res.byName.dns!.message).toContain('unknown.test does not exist (NXDOMAIN)');
  });

  it('never dials a loopback mail host without SMTP_ALLOW_PRIVATE_NETWORKS', async () => {
    const res = await checks(env({ SMTP_ALLOW_PRIVATE_NETWORKS: 'false' }), '--domain', 'normal.test');
    expect(res.status.smtp).toBe('fail');
    expect(res.byName.smtp!.message).toContain('non-public address (loopback)');
    expect(res.byName.smtp!.advice).toContain('a public address');
    expect(world.smtpConnections()).toBe(0);
  });

  it('reaches the MX through SMTP_PROXY_URL, and asks for --egress-ip since the proxy hides the egress address', async () => {
    const proxy = await SocksServer.start({ user: 'egress', password: 'proxy secret' });
    try {
      const through = await checks(env({ SMTP_PROXY_URL: proxy.url() }), '--domain', 'normal.test');
      expect(through.code).toBe(0);
      expect(through.status).toEqual({ ...allOk, ptr: 'warn', dnsbl: 'warn' });
      expect(through.byName.ptr!.advice).toContain('--egress-ip');
      expect(proxy.connections()).toEqual([`${world.hostAddress('mx.normal.test')}:${world.smtpPort}`]);
      expect(world.smtpTranscript('mx.normal.test')).toEqual([`EHLO ${HELO}`, 'QUIT']);

      const given = await checks(
        env({ SMTP_PROXY_URL: proxy.url() }),
        '--domain',
        'normal.test',
        '--egress-ip',
        '127.0.0.1',
      );
      expect(given.status).toEqual(allOk);

      proxy.resetCounters();
      world.resetCounters();
      const refused = await checks(
        env({ SMTP_PROXY_URL: proxy.url('egress', 'wrong') }),
        '--domain',
        'normal.test',
      );
      expect(refused.code).toBe(1);
      expect(refused.status.smtp).toBe('fail');
      expect(refused.byName.smtp!.message).not.toContain('wrong');
      expect(proxy.authFailures()).toBeGreaterThan(0);
      expect(world.smtpConnections()).toBe(0);
    } finally {
      await proxy.stop();
    }
  });

  it('answers a bad option with the usage and exit 2, and a bad setting naming the variable with exit 1', async () => {
    for (const args of [
      ['--egress-ip', 'nope'],
      ['--domain', 'not a domain'],
      ['--mx', 'no spaces allowed'],
      ['extra'],
    ]) {
      const res = await doctor(env(), ...args);
      expect(res.code, args.join(' ')).toBe(2);
      expect(res.err).toMatch(/^error: /);
      expect(res.err).toContain('doctor         [--domain D] [--mx H] [--egress-ip IP] [--json]');
    }
    const bad = await doctor(env({ SMTP_PORT: 'twenty-five' }), '--domain', 'normal.test');
    expect(bad.code).toBe(1);
    expect(bad.err).toContain('SMTP_PORT');
    expect(world.smtpConnections()).toBe(0);
  });
});
