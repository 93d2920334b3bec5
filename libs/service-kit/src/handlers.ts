import { DomainError, type RpcReply, type RpcRequest, type RpcSubject } from '@emailverify/contracts';
import type { MessageBus, MessageContext } from '@emailverify/messaging';
import type { Logger } from 'pino';
import type { z } from 'zod';
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

export type Route<S extends RpcSubject> = {
  parse: (payload: unknown) => RpcRequest<S>;
  handle: (request: RpcRequest<S>, ctx: MessageContext) => Promise<RpcReply<S>>;
};
export type Routes = { [S in RpcSubject]?: Route<S> };

/** Subscribes every route in the service's queue group, logging one line and one metric per message. */
export function serveRoutes(
  bus: MessageBus,
  queue: string,
  routes: Routes,
  logger: Logger,
  metrics: Metrics,
): void {
  for (const subject of Object.keys(routes) as RpcSubject[]) {
    const route = routes[subject] as Route<typeof subject>;
    bus.serve(subject, {
      queue,
      parse: route.parse,
      handler: route.handle,
      onError: (err, ctx) =>
        logger.error({ err, requestId: ctx.requestId, errorId: ctx.errorId, subject }, 'handler failed'),
      onDone: (ctx, outcome) => {
        metrics.messages.observe(
          { subject, outcome: outcome.ok ? 'ok' : (outcome.code ?? 'error') },
          outcome.ms / 1000,
        );
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
}
