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

  async function admin(...args: string[]): Promise<{ code: number; out: unknown; err: string }> {
    const entry = path.join(process.cwd(), 'dist/tools/admin/main.js');
    try {
      const { stdout, stderr } = await run(process.execPath, [entry, ...args], { env: suite.env() });
      return { code: 0, out: JSON.parse(stdout), err: stderr };
    } catch (e) {
      const err = e as { code: number; stdout: string; stderr: string };
      return { code: err.code, out: err.stdout ? JSON.parse(err.stdout) : undefined, err: err.stderr };
    }
  }

  it('creates an account with credits and a working key, then manages keys and credits', async () => {
    const created = await admin('create-account', '--name', 'acme', '--credits', '250', '--style', 'legacy');
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

    const added = await admin('add-credits', '--account', accountId, '--credits', '50');
    expect(added.out).toMatchObject({ account_id: accountId, credits_balance: 300, credits_added: 300 });

    const second = await admin('create-key', '--account', accountId, '--name', 'ci');
    expect(second.out).toMatchObject({
      account_id: accountId,
      api_key_name: 'ci',
      style: 'current',
      api_key: expect.stringMatching(/^ev_/),
    });

    const styled = await admin('set-style', '--key', keyId, '--style', 'current');
    expect(styled.out).toMatchObject({ api_key_id: keyId, style: 'current' });
    expect((await suite.call('/v1/credits', { key: apiKey })).json).toMatchObject({
      success: true,
      data: { credits_balance: 300 },
    });

    const listed = await admin('list-keys', '--account', accountId);
    expect((listed.out as { keys: Array<{ name: string }> }).keys.map((k) => k.name)).toEqual([
      'default',
      'ci',
    ]);
    expect(JSON.stringify(listed.out)).not.toContain(apiKey);

    const revoked = await admin('revoke-key', '--key', apiKey);
    expect(revoked.out).toMatchObject({ api_key_id: keyId, revoked_at: expect.any(String) });
    expect((await suite.call('/v1/credits', { key: apiKey })).status).toBe(401);
  });

  it('fails with a JSON error and exit code 1 on bad input', async () => {
    const missing = await admin('create-account', '--name', 'x');
    expect(missing.code).toBe(1);
    expect(JSON.parse(missing.err)).toEqual({
      error: { code: 'INVALID_REQUEST', message: '--credits is required' },
    });
    const unknownAccount = await admin(
      'add-credits',
      '--account',
      '00000000-0000-4000-8000-000000000000',
      '--credits',
      '5',
    );
    expect(unknownAccount.code).toBe(1);
    expect(JSON.parse(unknownAccount.err).error.code).toBe('ACCOUNT_NOT_FOUND');
    const badStyle = await admin('set-style', '--key', 'whatever', '--style', 'fancy');
    expect(JSON.parse(badStyle.err).error.message).toContain('--style');
  });
});
