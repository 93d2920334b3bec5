import {
  type AccountId,
  type ChunkMessage,
  DomainError,
  Subjects,
  unpackChunkItem,
} from '@emailverify/contracts';
import type { RouteServer, Routes } from '@emailverify/service-kit';
import { describe, expect, it } from 'vitest';
import { verifierConfigSchema } from '../config';
import { VerifierHandler } from '../verifier.handler';
import { VerifierPayloads } from '../verifier.schemas';
import type { ChunkWorker } from './chunk-worker';
import type { DomainFactsExchange } from './domain-facts-exchange';
import type { DomainReportService } from './domain-report.service';
import { SandboxService } from './sandbox.service';
import type { UsageRecorder } from './usage-recorder';
import type { VerificationService } from './verification.service';

const ACCOUNT = '6f1c2b4e-0000-4000-8000-0000000000aa' as AccountId;
const config = verifierConfigSchema.parse({ BULK_MAX_EMAILS: '3' });
const sandbox = new SandboxService(config);

describe('SandboxService', () => {
  it('answers a single address from the table, free and never cached', () => {
    const reply = sandbox.single({
      accountId: ACCOUNT,
      email: 'jane+catchall@Example.com',
      checkSmtp: true,
      forceRefresh: false,
      sandbox: true,
    });
    expect(reply).toMatchObject({
      email: 'jane+catchall@example.com',
      status: 'catchall',
      reason: 'catch_all',
      creditsUsed: 0,
      cached: false,
    });
  });

  it('refuses a malformed single address with INVALID_EMAIL, as a live request', () => {
    expect(() =>
      sandbox.single({ accountId: ACCOUNT, email: 'nope', checkSmtp: false, forceRefresh: false }),
    ).toThrow(expect.objectContaining({ code: 'INVALID_EMAIL' }));
  });

  it('answers a bulk item by item, malformed ones invalid, nothing charged; its size is checked', () => {
    const reply = sandbox.bulk({
      accountId: ACCOUNT,
      emails: ['invalid@example.com', 'not an address', 'x+role@example.com'],
      checkSmtp: false,
    });
    expect(reply.results.map((r) => [r.status, r.reason, r.creditsUsed])).toEqual([
      ['invalid', 'mailbox_not_found', 0],
      ['invalid', 'invalid_syntax', 0],
      ['role', 'role_account', 0],
    ]);
    expect(reply.creditsUsed).toBe(0);
    expect(() =>
      sandbox.bulk({ accountId: ACCOUNT, emails: ['a@b.c', 'a@b.c', 'a@b.c', 'a@b.c'], checkSmtp: false }),
    ).toThrow(DomainError);
  });

  it('reports a domain by its first label, free', () => {
    expect(
      sandbox.domain({ accountId: ACCOUNT, domain: 'no-domain.example.com', checkSmtp: false }),
    ).toMatchObject({ acceptsMail: false, reason: 'domain_not_found', creditsUsed: 0, cached: false });
  });

  it("answers a chunk's addresses in order, at no cost, keyed as file-jobs stored them", () => {
    const chunk: ChunkMessage = {
      jobId: '6f1c2b4e-0000-4000-8000-000000000001',
      accountId: ACCOUNT,
      chunk: 0,
      checkSmtp: false,
      enrich: true,
      sandbox: true,
      jobCreatedAt: '2026-01-01T00:00:00.000Z',
      emails: ['x+disposable@example.com', 'jane@example.com', 'unknown@example.com'],
    };
    const items = sandbox.chunk(chunk).map(unpackChunkItem);
    expect(items.map((i) => [i.email, i.status, i.reason, i.creditsUsed])).toEqual([
      ['x+disposable@example.com', 'disposable', 'disposable_domain', 0],
      ['jane@example.com', 'valid', 'mx_found', 0],
      ['unknown@example.com', 'unknown', 'greylisted', 0],
    ]);
    expect(items[1]).toMatchObject({ hasGravatar: false, domainAge: 0 });
  });
});

describe('VerifierHandler: the sandbox flag of a request', () => {
  /** Usage counted by the handler: account, mode and how many results. */
  const counted: Array<[string, string, number]> = [];
  const usage = {
    count: (accountId: string, mode: string, results: Iterable<unknown>) =>
      void counted.push([accountId, mode, [...results].length]),
  };

  /** The handler's routes, over a verification service and a domain service that must not be reached. */
  async function routes(): Promise<Routes> {
    let served: Routes = {};
    const server = { serveRoutes: (_q: string, _p: string, r: Routes) => void (served = r) };
    const unreachable = () => Promise.reject(new Error('a live service was asked'));
    const handler = new VerifierHandler(
      server as unknown as RouteServer,
      { verifySingle: unreachable, verifyBulk: unreachable } as unknown as VerificationService,
      { start: async () => undefined } as unknown as ChunkWorker,
      { verifyDomain: unreachable } as unknown as DomainReportService,
      { start: () => undefined } as unknown as DomainFactsExchange,
      sandbox,
      usage as unknown as UsageRecorder,
    );
    await handler.onApplicationBootstrap();
    return served;
  }
  const ctx = { requestId: 'req-1' } as never;

  it('sends a sandbox request to the sandbox only, and a live one to the live services', async () => {
    const r = await routes();
    const single = VerifierPayloads.single({
      accountId: ACCOUNT,
      email: 'risky@example.com',
      checkSmtp: false,
      forceRefresh: false,
      sandbox: true,
    });
    await expect(r[Subjects.verifySingle]!.handle(single, ctx)).resolves.toMatchObject({ status: 'risky' });
    const bulk = VerifierPayloads.bulk({
      accountId: ACCOUNT,
      emails: ['full@example.com'],
      checkSmtp: false,
      sandbox: true,
    });
    await expect(r[Subjects.verifyBulk]!.handle(bulk, ctx)).resolves.toMatchObject({ creditsUsed: 0 });
    const domain = VerifierPayloads.domain({
      accountId: ACCOUNT,
      domain: 'null-mx.example.com',
      checkSmtp: false,
      sandbox: true,
    });
    await expect(r[Subjects.verifyDomain]!.handle(domain, ctx)).resolves.toMatchObject({ reason: 'null_mx' });
    // Sandbox verifications count in the account's usage apart from live ones (the domain report is not counted).
    expect(counted).toEqual([
      [ACCOUNT, 'sandbox', 1],
      [ACCOUNT, 'sandbox', 1],
    ]);
    // Without the flag the same request goes to the live service.
    const { sandbox: _omitted, ...live } = single;
    await expect(r[Subjects.verifySingle]!.handle(live, ctx)).rejects.toThrow('a live service was asked');
  });

  it('refuses a flag that is not a boolean', () => {
    expect(() =>
      VerifierPayloads.single({
        accountId: ACCOUNT,
        email: 'a@example.com',
        checkSmtp: false,
        forceRefresh: false,
        sandbox: 'yes',
      }),
    ).toThrow(DomainError);
  });
});
