import { type ExecutionContext, SetMetadata } from '@nestjs/common';
import type { Reflector } from '@nestjs/core';
import { IS_PUBLIC } from '@emailverify/service-kit';
import { PER_ADDRESS_LIMIT, RATE_CLASS, type RateClass } from '../rate-limit/rate-classes';

const RAW_BODY = 'emailverify:raw-body';
/** Routes that read the request stream themselves (multipart uploads). */
export const RawBody = (): MethodDecorator => SetMetadata(RAW_BODY, true);

const FULL_SCOPE = 'emailverify:full-scope';
/**
 * Routes (or controllers) that manage the account (keys, webhooks): a key of the `verify` scope is refused
 * there with 403 INSUFFICIENT_SCOPE.
 */
export const FullScope = (): ClassDecorator & MethodDecorator => SetMetadata(FULL_SCOPE, true);

/** What the pipeline needs to know of a route, read from its decorators once per handler. */
export interface RoutePolicy {
  /** @Public(): no API key. */
  isPublic: boolean;
  /** The route's rate-limit class (`other` when it names none). */
  rateClass: RateClass;
  /** @PerAddressLimit(): a public route counted per client address. */
  perAddress: boolean;
  /** @RawBody(): the handler reads the request stream itself. */
  rawBody: boolean;
  /** @FullScope(): only a key of the `full` scope may call it. */
  fullScope: boolean;
}

const policies = new WeakMap<object, RoutePolicy>();

/** The policy of the route `context` is about; decorators never change after start-up, so it is kept. */
export function routePolicy(reflector: Reflector, context: ExecutionContext): RoutePolicy {
  const handler = context.getHandler();
  let policy = policies.get(handler);
  if (!policy) {
    const targets = [handler, context.getClass()];
    policy = {
      isPublic: reflector.getAllAndOverride<boolean>(IS_PUBLIC, targets) ?? false,
      rateClass: reflector.getAllAndOverride<RateClass>(RATE_CLASS, targets) ?? 'other',
      perAddress: reflector.get<boolean>(PER_ADDRESS_LIMIT, handler) ?? false,
      rawBody: reflector.get<boolean>(RAW_BODY, handler) ?? false,
      fullScope: reflector.getAllAndOverride<boolean>(FULL_SCOPE, targets) ?? false,
    };
    policies.set(handler, policy);
  }
  return policy;
}
