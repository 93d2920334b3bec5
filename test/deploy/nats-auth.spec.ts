import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const read = (file: string) => readFileSync(path.join(process.cwd(), file), 'utf8');

/** test/e2e/nats-auth.e2e-spec.ts runs the suite on the compose file; Helm deploys the same users. */
describe('deploy: the NATS users and permissions', () => {
  it('are one file for compose and Helm', () => {
    const compose = read('deploy/compose/nats-auth.conf');
    expect(compose).toContain('users: [');
    expect(read('deploy/helm/emailverify/files/nats-auth.conf')).toBe(compose);
  });
});
