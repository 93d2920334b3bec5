import { type ArgumentsHost, createParamDecorator, type ExecutionContext } from '@nestjs/common';
import type { AccountId, KeyMode, KeyScope, ResponseStyle } from '@emailverify/contracts';
import type { Request, Response } from 'express';

export interface AuthContext {
  /** The account the credits service resolved the API key to. */
  accountId: AccountId;
  apiKeyId: string;
  apiKeyName: string;
  plan: string;
  /** The key's default style; a request header may override it. */
  defaultStyle: ResponseStyle;
  /** `sandbox`: canned answers, no network, no charge. Fixed when the key was made. */
  mode: KeyMode;
  /** `verify`: verification endpoints and credits only (no keys or webhooks management). */
  scope: KeyScope;
  /** The request's id (X-Request-Id): every message sent on the caller's behalf carries it. */
  requestId: string;
}

export interface RateLimitState {
  limit: number;
  remaining: number;
  /** Unix seconds when the window resets. */
  resetAt: number;
}

/** What the pipeline learns about a request as it passes guards and interceptors. */
export interface GatewayRequest extends Request {
  requestId: string;
  auth?: AuthContext;
  style?: ResponseStyle;
  rateLimit?: RateLimitState;
  /**
   * Set when the key was known and the ApiKeyGuard left the failed-authentication check of this client address
   * to the RateLimitGuard, which makes it with the request's count.
   */
  addressToCheck?: string;
}

export const STYLE_HEADER = 'svc-response-style';

/**
 * The HTTP request and reply of a guard's, filter's or decorator's context. Read by position, as switchToHttp()
 * would read them: each switchToHttp() call makes three functions and reshapes the context object, on every
 * request and for every guard.
 */
export const requestOf = (ctx: ArgumentsHost): GatewayRequest => ctx.getArgByIndex<GatewayRequest>(0);
export const responseOf = (ctx: ArgumentsHost): Response => ctx.getArgByIndex<Response>(1);

/** The authenticated caller of this request (`@Auth() auth: AuthContext`), set by the ApiKeyGuard. */
export const Auth = createParamDecorator((_data: unknown, ctx: ExecutionContext): AuthContext => {
  const { auth } = requestOf(ctx);
  if (!auth) throw new Error('@Auth() on a route that is not authenticated (a @Public() one)');
  return auth;
});

/** The request's id (X-Request-Id), for routes without an `@Auth()` caller that still send messages. */
export const RequestId = createParamDecorator(
  (_data: unknown, ctx: ExecutionContext): string => requestOf(ctx).requestId,
);

/** The caller's rate-limit window after this request, set by the RateLimitGuard. */
export const RateLimit = createParamDecorator((_data: unknown, ctx: ExecutionContext): RateLimitState => {
  const { rateLimit } = requestOf(ctx);
  if (!rateLimit) throw new Error('@RateLimit() on a route that is not rate-limited (a @Public() one)');
  return rateLimit;
});
