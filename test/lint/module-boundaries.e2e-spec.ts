import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { ESLint } from 'eslint';
import { beforeAll, describe, expect, it } from 'vitest';

const root = process.cwd();

/**
 * What the lint says of `source` standing in for the existing file `relative` (typed linting knows only files
 * of the projects' tsconfigs): linted as text, so no probe file is written into the checkout, where it would
 * break a build or a test running beside this one.
 */
async function ruleIds(relative: string, source: string): Promise<string[]> {
  const eslint = new ESLint({ cwd: root });
  const [result] = await eslint.lintText(source, { filePath: path.join(root, relative) });
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

  it('fails when an app imports another app', async () => {
    expect(
      await ruleIds(
        'apps/gateway/src/main.ts',
        "import { creditsConfig } from '../../credits/src/config';\nexport const probe = creditsConfig;\n",
      ),
    ).toContain('@nx/enforce-module-boundaries');
  });

  it('fails when a library imports an app', async () => {
    expect(
      await ruleIds(
        'libs/messaging/src/index.ts',
        "import { gatewayConfig } from '../../../apps/gateway/src/config';\nexport const probe = gatewayConfig;\n",
      ),
    ).toContain('@nx/enforce-module-boundaries');
  });

  it('fails when production code imports the testing library', async () => {
    expect(
      await ruleIds(
        'apps/gateway/src/main.ts',
        "import { MailWorld } from '@emailverify/testing';\nexport const probe = MailWorld;\n",
      ),
    ).toContain('no-restricted-imports');
  });

  it('passes an app importing libraries through their public index', async () => {
    expect(
      await ruleIds(
        'apps/gateway/src/main.ts',
        "import { Subjects } from '@emailverify/contracts';\nexport const probe = Subjects.creditsPing;\n",
      ),
    ).toEqual([]);
  });

  it('fails a library file imported past its index, but passes the service kit’s config entry', async () => {
    expect(
      await ruleIds(
        'tools/admin/main.ts',
        "import { runMain } from '@emailverify/service-kit/nest';\nexport const probe = runMain;\n",
      ),
    ).toContain('no-restricted-imports');
    expect(
      await ruleIds(
        'tools/admin/main.ts',
        "import { loadConfig } from '@emailverify/service-kit/config';\nexport const probe = loadConfig;\n",
      ),
    ).toEqual([]);
  });

  describe('the web console (apps/console): the public API only', () => {
    const page = 'apps/console/src/pages/overview/OverviewPage.tsx';

    it.each([
      [
        'the messaging library',
        "import { MessageBus } from '@emailverify/messaging';\nexport const probe = MessageBus;\n",
      ],
      [
        'the persistence library',
        "import * as db from '@emailverify/persistence';\nexport const probe = db;\n",
      ],
      ['NATS', "import { connect } from '@nats-io/transport-node';\nexport const probe = connect;\n"],
      ['PostgreSQL', "import { Pool } from 'pg';\nexport const probe = Pool;\n"],
      ['TypeORM', "import { DataSource } from 'typeorm';\nexport const probe = DataSource;\n"],
      [
        'app code',
        "import { gatewayConfig } from '../../../../gateway/src/config';\nexport const probe = gatewayConfig;\n",
      ],
    ])('fails when it imports %s', async (_what, source) => {
      expect(await ruleIds(page, source)).toContain('@nx/enforce-module-boundaries');
    });

    it('passes the typed client and contracts’ types', async () => {
      expect(
        await ruleIds(
          page,
          "import { createEmailVerifyClient } from '@emailverify/client';\n" +
            "import type { Reason } from '@emailverify/contracts';\n" +
            'export const probe = createEmailVerifyClient;\nexport type Probe = Reason;\n',
        ),
      ).toEqual([]);
    });

    it('passes the rules contracts share with the services, such as the address column’s', async () => {
      expect(
        await ruleIds(
          'apps/console/src/pages/files/columns.ts',
          "import { detectEmailColumn } from '@emailverify/contracts';\nexport const probe = detectEmailColumn;\n",
        ),
      ).toEqual([]);
    });

    it('passes the XLSX reading it shares with the file service', async () => {
      expect(
        await ruleIds(
          'apps/console/src/pages/files/xlsx-rows.ts',
          "import { WorksheetHandler } from '@emailverify/spreadsheet';\nexport const probe = WorksheetHandler;\n",
        ),
      ).toEqual([]);
    });
  });

  describe('code that runs in browsers (the console, the spreadsheet library): no Node.js modules', () => {
    const consolePage = 'apps/console/src/pages/overview/OverviewPage.tsx';
    const sheet = 'libs/spreadsheet/src/xml.ts';
    const buffer = "import { Buffer } from 'node:buffer';\nexport const probe = Buffer;\n";

    it.each([
      [consolePage, buffer],
      [consolePage, "import { readFileSync } from 'fs';\nexport const probe = readFileSync;\n"],
      [sheet, buffer],
      [sheet, "import { inflateSync } from 'zlib';\nexport const probe = inflateSync;\n"],
    ])('fails when %s imports one: %j', async (file, source) => {
      expect(await ruleIds(file, source)).toContain('no-restricted-imports');
    });
  });

  describe('the spreadsheet library (libs/spreadsheet): stands alone', () => {
    const file = 'libs/spreadsheet/src/xml.ts';

    it.each([
      [
        'the files library',
        "import { readRows } from '@emailverify/files';\nexport const probe = readRows;\n",
      ],
      [
        'the contracts library',
        "import { detectEmailColumn } from '@emailverify/contracts';\nexport const probe = detectEmailColumn;\n",
      ],
    ])('fails when it imports %s', async (_what, source) => {
      expect(await ruleIds(file, source)).toContain('@nx/enforce-module-boundaries');
    });
  });
});
