import {
  type AccountId,
  DomainError,
  type PingReply,
  type RpcReply,
  type RpcRequest,
  type RpcSubject,
  UUID_PATTERN,
} from '@emailverify/contracts';
import type { MessageBus, MessageContext } from '@emailverify/messaging';
import type { DataSource } from '@emailverify/persistence';
import type { Logger } from 'pino';
import { z } from 'zod';
import type { Metrics } from './metrics';

/** Turns a zod schema into a payload parser whose failure is a 400-class INVALID_REQUEST naming the field. */
export function parseWith<T>(schema: z.ZodType<T>): (payload: unknown) => T {
  return (payload) => {
    const result = schema.safeParse(payload);
    if (result.success) return result.data;
    const issue = result.error.issues[0];
    const field = issue?.path.join('.') || 'body';
    throw new DomainError('INVALID_REQUEST', `${field}: ${issue?.message ?? 'invalid'}`, { field });
  };
}

/** An id field of a payload (accounts, jobs, webhooks): a UUID as the contracts define it. */
export const uuid = () => z.string().regex(UUID_PATTERN, 'must be a UUID');

/** An account id field: a UUID, checked here, so the service may scope its queries by it (AccountId). */
export const accountIdField = () => uuid().transform((value) => value as AccountId);

export type Route<S extends RpcSubject> = {
  parse: (payload: unknown) => RpcRequest<S>;
  handle: (request: RpcRequest<S>, ctx: MessageContext) => Promise<RpcReply<S>>;
};
export type Routes = { [S in RpcSubject]?: Route<S> };

/** The `<service>.health.ping` subject of a service, which the gateway's readiness asks. */
export type PingSubject = Extract<RpcSubject, `${string}.health.ping`>;

/** Any payload: a ping carries nothing the service reads. */
const parsePing = parseWith(
  z
    .object({})
    .passthrough()
    .transform(() => ({}) as Record<string, never>),
);

/**
 * Serves a service's NATS routes in its queue group, logging one line and one metric per message. Every
 * service answers its ping the same way: only when its own database answers, so a service whose database is
 * gone makes the gateway unready. `serviceProviders` builds one per app.
 */
export class RouteServer {
  constructor(
    private readonly bus: MessageBus,
    private readonly service: string,
    private readonly dataSource: DataSource | null,
    private readonly logger: Logger,
    private readonly metrics: Metrics,
  ) {}

  /** Subscribes every route and the service's ping. */
  serveRoutes(queue: string, ping: PingSubject, routes: Routes): void {
    const all: Routes = { ...routes, [ping]: { parse: parsePing, handle: () => this.ping() } };
    for (const subject of Object.keys(all) as RpcSubject[]) {
      this.serve(queue, subject, all[subject] as Route<typeof subject>);
    }
  }

  private serve<S extends RpcSubject>(queue: string, subject: S, route: Route<S>): void {
    const { logger, metrics } = this;
    this.bus.serve(subject, {
      queue,
      parse: route.parse,
      handler: route.handle,
      onError: (err, ctx) =>
        logger.error({ err, requestId: ctx.requestId, errorId: ctx.errorId, subject }, 'handler failed'),
      onDone: (ctx, outcome) => {
        metrics
          .natsLatency('served')
          .observe({ subject, outcome: outcome.ok ? 'ok' : (outcome.code ?? 'error') }, outcome.ms / 1000);
        logger.info(
          {
            requestId: ctx.requestId,
            subject,
            ok: outcome.ok,
            code: outcome.code,
            ms: Math.round(outcome.ms),
          },
          'message',
        );
      },
    });
  }

  private async ping(): Promise<PingReply> {
    if (this.dataSource) await this.dataSource.query('SELECT 1');
    return { service: this.service, ok: true };
  }
}
