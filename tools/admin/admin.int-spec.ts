import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { TestSuite } from '@emailverify/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const run = promisify(execFile);

describe('admin CLI (npm run admin)', () => {
  let suite: TestSuite;

  beforeAll(async () => {
    suite = await TestSuite.start();
  });
  afterAll(async () => suite?.stop());

  async function admin(
    env: NodeJS.ProcessEnv | undefined,
    ...args: string[]
  ): Promise<{ code: number; out: unknown; text: string; err: string }> {
    const entry = path.join(process.cwd(), 'dist/tools/admin/main.js');
    const parse = (text: string): unknown => {
      try {
        return JSON.parse(text);
      } catch {
        return undefined;
      }
    };
    try {
      const { stdout, stderr } = await run(process.execPath, [entry, ...args], { env: env ?? suite.env() });
      return { code: 0, out: parse(stdout), text: stdout, err: stderr };
    } catch (e) {
      const err = e as { code: number; stdout: string; stderr: string };
      return { code: err.code, out: parse(err.stdout), text: err.stdout, err: err.stderr };
    }
  }

  it('creates an account with credits and a working key, then manages keys and credits', async () => {
    const created = await admin(
      undefined,
      'create-account',
      '--name',
      'acme',
      '--credits',
      '250',
      '--style',
      'legacy',
    );
    expect(created.code).toBe(0);
    expect(created.out).toEqual({
      account_id: expect.any(String),
      api_key_id: expect.any(String),
      api_key: expect.stringMatching(/^ev_/),
    });
    const {
      account_id: accountId,
      api_key: apiKey,
      api_key_id: keyId,
    } = created.out as Record<string, string>;

    const legacy = await suite.call('/v1/credits', { key: apiKey });
    expect(legacy.json).toMatchObject({ available: 250, total: 250 });

    const added = await admin(undefined, 'add-credits', '--account', accountId, '--credits', '50');
    expect(added.out).toMatchObject({ account_id: accountId, credits_balance: 300, credits_added: 300 });

    const second = await admin(undefined, 'create-key', '--account', accountId, '--name', 'ci');
    expect(second.out).toMatchObject({
      account_id: accountId,
      api_key_name: 'ci',
      style: 'current',
      api_key: expect.stringMatching(/^ev_/),
    });

    const sandbox = await admin(
      undefined,
      'create-key',
      '--account',
      accountId,
      '--name',
      'tests',
      '--sandbox',
      '--scope',
      'verify',
    );
    expect(sandbox.out).toMatchObject({
      api_key_name: 'tests',
      mode: 'sandbox',
      scope: 'verify',
      expires_at: null,
      api_key: expect.stringMatching(/^ev_test_/),
    });
    const sandboxKey = (sandbox.out as { api_key: string }).api_key;
    expect((await suite.call('/v1/credits', { key: sandboxKey })).json).toMatchObject({
      data: { credits_balance: 300, mode: 'sandbox' },
    });

    const styled = await admin(undefined, 'set-style', '--key', keyId, '--style', 'current');
    expect(styled.out).toMatchObject({ api_key_id: keyId, style: 'current' });
    expect((await suite.call('/v1/credits', { key: apiKey })).json).toMatchObject({
      success: true,
      data: { credits_balance: 300, mode: 'live' },
    });

    const listed = await admin(undefined, 'list-keys', '--account', accountId);
    expect((listed.out as { keys: Array<{ name: string }> }).keys.map((k) => k.name)).toEqual([
      'default',
      'ci',
      'tests',
    ]);
    expect(JSON.stringify(listed.out)).not.toContain(apiKey);

    const revoked = await admin(undefined, 'revoke-key', '--key', apiKey);
    expect(revoked.out).toMatchObject({ api_key_id: keyId, revoked_at: expect.any(String) });
    expect((await suite.call('/v1/credits', { key: apiKey })).status).toBe(401);
  });

  it('answers a mistake on the command line in plain text with the usage, exit 2, without NATS', async () => {
    const offline = { ...suite.env(), NATS_URL: 'nats://127.0.0.1:9' };
    for (const args of [
      ['create-account', '--name', 'x'],
      ['set-style', '--key', 'whatever', '--style', 'fancy'],
      ['create-account', '--name', 'x', '--credits', 'lots'],
      ['frobnicate'],
      ['list-keys', '--acount', 'x'],
      ['create-key', '--account', '00000000-0000-4000-8000-000000000000', '--scope', 'admin'],
      ['create-key', '--account', '00000000-0000-4000-8000-000000000000', '--expires-at', 'soon'],
      [],
    ]) {
      const res = await admin(offline, ...args);
      expect(res.code, args.join(' ')).toBe(2);
      expect(res.err).toMatch(/^error: /);
      expect(res.err).toContain('Usage: npm run admin -- <command> [options]');
      expect(() => JSON.parse(res.err)).toThrow();
    }
    expect((await admin(offline, 'create-account', '--name', 'x')).err).toContain('--credits is required');
    expect((await admin(offline, 'frobnicate')).err).toContain('unknown command "frobnicate"');
  });

  it('prints the plain-text usage for --help with exit 2, and names NATS_URL and NATS_NAMESPACE when NATS cannot be reached', async () => {
    const offline = { ...suite.env(), NATS_URL: 'nats://admin:hunter2-password@127.0.0.1:9' };
    for (const args of [['--help'], ['-h'], ['help'], ['create-key', '--help']]) {
      const help = await admin(offline, ...args);
      expect(help.code, args.join(' ')).toBe(2);
      expect(help.text).toMatch(/^Usage: npm run admin -- <command> \[options\]\n/);
      expect(help.text).toContain('create-account --name N --credits C');
      expect(help.text).toContain('exits with status 2');
      expect(help.out).toBeUndefined();
      expect(help.err).toBe('');
    }
    const unreachable = await admin(
      offline,
      'list-keys',
      '--account',
      '00000000-0000-4000-8000-000000000000',
    );
    expect(unreachable.code).toBe(1);
    expect(unreachable.err).toContain('cannot reach NATS at nats://127.0.0.1:9 (NATS_URL');
    expect(unreachable.err).toContain(`NATS_NAMESPACE=${suite.namespace}`);
    expect(unreachable.err).not.toContain('hunter2');
  });

  it('fails with a JSON error and exit code 1 when the service refuses', async () => {
    const unknownAccount = await admin(
      undefined,
      'add-credits',
      '--account',
      '00000000-0000-4000-8000-000000000000',
      '--credits',
      '5',
    );
    expect(unknownAccount.code).toBe(1);
    expect(JSON.parse(unknownAccount.err).error.code).toBe('ACCOUNT_NOT_FOUND');
  });
});
