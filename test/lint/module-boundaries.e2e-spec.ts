import { execFileSync } from 'node:child_process';
import { rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { ESLint } from 'eslint';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';

const root = process.cwd();
const probes: string[] = [];

function probe(relative: string, source: string): string {
  const file = path.join(root, relative);
  writeFileSync(file, source);
  probes.push(file);
  return file;
}

async function ruleIds(file: string): Promise<string[]> {
  const eslint = new ESLint({ cwd: root });
  const [result] = await eslint.lintFiles([file]);
  return (result?.messages ?? []).map((m) => m.ruleId ?? m.message);
}

describe('lint: module boundaries (npm run check)', () => {
  beforeAll(() => {
    // The boundary rule reads the Nx project graph, which `npm run lint` computes first too.
    execFileSync(process.execPath, [path.join(root, 'node_modules/.bin/nx'), 'show', 'projects'], {
      cwd: root,
      env: { ...process.env, NX_DAEMON: 'false', NX_NO_CLOUD: 'true' },
      stdio: 'ignore',
    });
  });
  afterEach(() => {
    for (const file of probes.splice(0)) rmSync(file, { force: true });
  });

  it('fails when an app imports another app', async () => {
    const file = probe(
      'apps/gateway/src/zz-boundary-probe.ts',
      "import { loadCreditsConfig } from '../../credits/src/config';\nexport const probe = loadCreditsConfig;\n",
    );
    expect(await ruleIds(file)).toContain('@nx/enforce-module-boundaries');
  });

  it('fails when a library imports an app', async () => {
    const file = probe(
      'libs/messaging/src/zz-boundary-probe.ts',
      "import { loadGatewayConfig } from '../../../apps/gateway/src/config';\nexport const probe = loadGatewayConfig;\n",
    );
    expect(await ruleIds(file)).toContain('@nx/enforce-module-boundaries');
  });

  it('fails when production code imports the testing library', async () => {
    const file = probe(
      'apps/gateway/src/zz-boundary-probe.ts',
      "import { MailWorld } from '@emailverify/testing';\nexport const probe = MailWorld;\n",
    );
    expect(await ruleIds(file)).toContain('no-restricted-imports');
  });

  it('passes an app importing libraries through their public index', async () => {
    const file = probe(
      'apps/gateway/src/zz-boundary-probe.ts',
      "import { Subjects } from '@emailverify/contracts';\nexport const probe = Subjects.creditsPing;\n",
    );
    expect(await ruleIds(file)).toEqual([]);
  });
});
