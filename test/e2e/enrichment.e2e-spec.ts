import { type Account, MailWorld, TestSuite } from '@emailverify/testing';
import Papa from 'papaparse';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';

/**
 * What leaves the service for Gravatar and RDAP (docs/lookups.md), counted by the loopback stand-ins the
 * verifier is pointed at, as production points it at the real services: file jobs and bulk requests make no
 * such request unless the upload says `enrich=true`, and then one per unique address (Gravatar) and one per
 * domain (RDAP); a single verification shows the fields even when a file job's cached result answers it.
 */
describe('enrichment: Gravatar and RDAP only where the reply shows them', () => {
  let world: MailWorld;
  let suite: TestSuite;
  let account: Account;
  const REGISTERED = new Date('2001-01-01T00:00:00Z');

  /** A domain that takes mail for `mailboxes`, registered in 2001, each mailbox with a Gravatar. */
  function mailDomain(name: string, mailboxes: string[]): void {
    world.domain(name, {
      mx: [{ priority: 10, host: `mx.${name}`, smtp: { mailboxes } }],
      createdAt: REGISTERED,
    });
    for (const mailbox of mailboxes) world.registerGravatar(`${mailbox}@${name}`);
  }

  beforeAll(async () => {
    world = await MailWorld.start();
    for (const test of ['plain', 'bulk', 'rich', 'single']) {
      for (const n of [1, 2, 3]) mailDomain(`${test}${n}.test`, ['ann', 'bob', 'cy', 'dee', 'eve']);
    }
    world.domain('gone.test', { nxdomain: true });
    await world.ready();
    suite = await TestSuite.start({
      world,
      env: {
        // The production defaults turn both lookups on; here they go to the counting stand-ins.
        GRAVATAR_BASE_URL: world.gravatarBaseUrl,
        RDAP_BASE_URL: world.rdapBaseUrl,
        // Several chunks of a job are verified at once, so lookups of one domain meet in flight.
        FILE_CHUNK_SIZE: '4',
        FILE_CHUNKS_IN_FLIGHT: '4',
      },
    });
    account = await suite.createAccount({ credits: 10_000 });
  });
  // The suite stops the world with it.
  afterAll(async () => suite?.stop());
  beforeEach(() => world.resetCounters());

  const lookups = () => ({ gravatar: world.httpRequests('gravatar'), rdap: world.httpRequests('rdap') });

  /**
   * A CSV of every address of the test's three domains (15 unique), each twice (the second time with the domain
   * in capitals and spaces around: the same address), two on a domain that does not exist, one that is not an
   * address: 33 rows, 18 unique cells.
   */
  function csvOf(test: string): string {
    const rows = ['Name,Email'];
    for (const n of [1, 2, 3]) {
      for (const mailbox of ['ann', 'bob', 'cy', 'dee', 'eve']) {
        rows.push(
          `${mailbox},${mailbox}@${test}${n}.test`,
          ` ${mailbox} again, ${mailbox}@${test.toUpperCase()}${n}.Test `,
        );
      }
    }
    rows.push(`ghost,${test}@gone.test`, `ghost2,${test}2@gone.test`, 'nobody,not an address');
    return `${rows.join('\n')}\n`;
  }

  async function fileJob(test: string, fields: Record<string, string> = {}) {
    const res = await suite.upload({
      key: account.apiKey,
      file: { name: `${test}.csv`, content: csvOf(test) },
      fields,
    });
    expect(res.status).toBe(200);
    const id = res.json.data.task_id as string;
    const done = await suite.finishedJob(id, account.apiKey);
    expect(done.status).toBe('completed');
    // The legacy style answers the whole result file itself.
    const file = await suite.call(`/v1/verify/file/${id}/results`, { key: account.apiKey, style: 'legacy' });
    expect(file.status).toBe(200);
    const [header, ...rows] = Papa.parse<string[]>(file.text.trimEnd()).data;
    const records = rows.map((row) => Object.fromEntries(header!.map((name, i) => [name, row[i]])));
    return { done, header: header!, records };
  }

  it('a file job without enrich asks neither Gravatar nor RDAP, and its file has no such column', async () => {
    const { done, header, records } = await fileJob('plain');
    expect(done).toMatchObject({ total_emails: 18, valid_emails: 15, invalid_emails: 3, credits_used: 17 });
    expect(records).toHaveLength(33);
    expect(header).not.toContain('has_gravatar');
    expect(header).not.toContain('domain_age');
    expect(header.at(-1)).toBe('smtp_check');
    expect(lookups()).toEqual({ gravatar: 0, rdap: 0 });
  });

  it('a bulk request asks neither Gravatar nor RDAP', async () => {
    const emails = [1, 2, 3].flatMap((n) => ['ann', 'bob', 'cy'].map((m) => `${m}@bulk${n}.test`));
    const res = await suite.call('/v1/verify/bulk', {
      key: account.apiKey,
      method: 'POST',
      body: { emails },
    });
    expect(res.status).toBe(200);
    expect(res.json.data).toMatchObject({ total_emails: 9, valid_emails: 9, credits_used: 9 });
    expect(lookups()).toEqual({ gravatar: 0, rdap: 0 });
  });

  it('a file job with enrich=true asks Gravatar once per unique address and RDAP once per domain, and shows both', async () => {
    // Two addresses verified (and cached) by a bulk request first: the job looks theirs up too.
    const cachedFirst = ['ann@rich1.test', 'bob@rich2.test'];
    const bulk = await suite.call('/v1/verify/bulk', {
      key: account.apiKey,
      method: 'POST',
      body: { emails: cachedFirst },
    });
    expect(bulk.status).toBe(200);
    expect(lookups()).toEqual({ gravatar: 0, rdap: 0 });

    const { done, header, records } = await fileJob('rich', { enrich: 'true' });
    // Credits as without enrich: one per fresh deliverable or invalid address, the two cached ones free.
    expect(done).toMatchObject({ total_emails: 18, valid_emails: 15, invalid_emails: 3, credits_used: 15 });
    expect(header.slice(-3)).toEqual(['smtp_check', 'has_gravatar', 'domain_age']);
    // 15 unique addresses on 3 domains that take mail; nothing for the domain that does not exist.
    expect(lookups()).toEqual({ gravatar: 15, rdap: 3 });
    const ageNow = Math.floor((Date.now() - REGISTERED.getTime()) / 86_400_000);
    for (const r of records) {
      if (r.status === 'valid') {
        expect(r).toMatchObject({ has_gravatar: 'true' });
        expect(Math.abs(Number(r.domain_age) - ageNow)).toBeLessThanOrEqual(1);
      } else {
        expect(r).toMatchObject({ status: 'invalid', has_gravatar: 'false', domain_age: '0' });
      }
    }
    expect(records.filter((r) => r.status === 'valid')).toHaveLength(30);
  });

  it('a single verification after a file job of the same address shows its Gravatar and domain age', async () => {
    await fileJob('single');
    expect(lookups()).toEqual({ gravatar: 0, rdap: 0 });
    const single = (body: Record<string, unknown>) =>
      suite.call('/v1/verify/single', { key: account.apiKey, method: 'POST', body });

    const cached = await single({ email: 'cy@single2.test' });
    expect(cached.status).toBe(200);
    // Answered from the file job's cached result (free), with the fields that job did not look up.
    expect(cached.json.data).toMatchObject({
      status: 'valid',
      credits_used: 0,
      has_gravatar: true,
      gravatar_url: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+\/avatar\/[0-9a-f]{64}$/),
    });
    expect(cached.json.data.domain_age).toBeGreaterThan(9000);
    expect(lookups()).toEqual({ gravatar: 1, rdap: 1 });

    // force_refresh verifies live and charges, and the reply carries the fields all the same.
    const forced = await single({ email: 'cy@single2.test', force_refresh: true });
    expect(forced.json.data).toMatchObject({ status: 'valid', credits_used: 1, has_gravatar: true });
    expect(forced.json.data.domain_age).toBe(cached.json.data.domain_age);
  });
});
