import { type AccountId, type RpcSubject, Subjects } from '@emailverify/contracts';
import type { MessageBus, ServeOptions } from '@emailverify/messaging';
import type { DataSource } from '@emailverify/persistence';
import { describe, expect, it } from 'vitest';
import { RouteServer } from './handlers';
import { createLogger } from './logger';
import { Metrics } from './metrics';

/** Keeps what `serve` was given, per subject, so a test can call a route as the bus would. */
function servingBus() {
  const served = new Map<string, ServeOptions<RpcSubject>>();
  const bus = {
    serve: (subject: RpcSubject, options: ServeOptions<RpcSubject>) => void served.set(subject, options),
  } as unknown as MessageBus;
  const call = async (subject: RpcSubject, payload: unknown) => {
    const route = served.get(subject);
    if (!route) throw new Error(`${subject} is not served`);
    return route.handler(route.parse(payload), { subject, requestId: 'r-1' });
  };
  return { bus, served, call };
}

function databaseAnswering(answers: boolean) {
  const queries: string[] = [];
  const dataSource = {
    query: async (sql: string) => {
      queries.push(sql);
      if (!answers) throw new Error('connection terminated');
      return [{ '?column?': 1 }];
    },
  } as unknown as DataSource;
  return { dataSource, queries };
}

const logger = createLogger('credits', 'silent');

describe('RouteServer', () => {
  it("serves every route in the service's queue group, and the service's ping beside them", async () => {
    const { bus, served, call } = servingBus();
    const { dataSource } = databaseAnswering(true);
    new RouteServer(bus, 'credits', dataSource, logger, new Metrics('credits')).serveRoutes(
      'credits',
      Subjects.creditsPing,
      {
        [Subjects.creditsKeyList]: {
          parse: (payload) => payload as { accountId: AccountId },
          handle: async ({ accountId }) => ({ keys: [], accountId }) as never,
        },
      },
    );
    expect([...served.keys()].sort()).toEqual([Subjects.creditsKeyList, Subjects.creditsPing].sort());
    expect([...served.values()].map((options) => options.queue)).toEqual(['credits', 'credits']);
    expect(await call(Subjects.creditsKeyList, { accountId: 'a' })).toEqual({ keys: [], accountId: 'a' });
  });

  it('answers the ping with the service name once its database answers, whatever the payload', async () => {
    const { bus, call } = servingBus();
    const { dataSource, queries } = databaseAnswering(true);
    new RouteServer(bus, 'file-jobs', dataSource, logger, new Metrics('file-jobs')).serveRoutes(
      'file-jobs',
      Subjects.filesPing,
      {},
    );
    expect(await call(Subjects.filesPing, { anything: true })).toEqual({ service: 'file-jobs', ok: true });
    expect(queries).toEqual(['SELECT 1']);
  });

  it('fails the ping when the database does not answer, so the gateway is not ready', async () => {
    const { bus, call } = servingBus();
    const { dataSource } = databaseAnswering(false);
    new RouteServer(bus, 'webhooks', dataSource, logger, new Metrics('webhooks')).serveRoutes(
      'webhooks',
      Subjects.webhooksPing,
      {},
    );
    await expect(call(Subjects.webhooksPing, {})).rejects.toThrow('connection terminated');
  });
});
