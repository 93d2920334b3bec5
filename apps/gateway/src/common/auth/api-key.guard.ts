import type { Socket } from 'node:net';
import { type CanActivate, type ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { DomainError, type ResolvedKey } from '@emailverify/contracts';
import type { Response } from 'express';
import { type GatewayRequest, requestOf, responseOf } from '../http/request-context';
import { routePolicy } from '../http/route-policy';
import { requestedStyle } from '../http/style';
import { clientAddressKey } from '../rate-limit/client-address';
import { RateLimiterService, tooManyAuthFailures } from '../rate-limit/rate-limiter.service';
import { AuthService } from './auth.service';
import { type CarriedKey, extractApiKey } from './carriers';

/**
 * The hash of the key each connection presented last: a client sends the same key on every request of a
 * keep-alive connection, and hashing it again cost more than the rest of the guard. Kept no longer than the
 * connection; a different key on it is hashed (and kept) in its place.
 */
const connectionKeys = new WeakMap<Socket, { key: string; hash: string }>();

/**
 * Authenticates every non-public route. A client IP that keeps failing is refused (429) for the rest of the
 * window, whatever key it tries next, so keys cannot be guessed at speed.
 */
@Injectable()
export class ApiKeyGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    private readonly auth: AuthService,
    private readonly limits: RateLimiterService,
  ) {}

  /** Synchronous (no promise for Nest to await) for a public route and for a key this gateway knows already. */
  canActivate(context: ExecutionContext): boolean | Promise<boolean> {
    if (routePolicy(this.reflector, context).isPublic) return true;
    const req = requestOf(context);
    const override = requestedStyle(req);
    if (override) req.style = override;
    const ip = clientAddressKey(req);

    const carried = extractApiKey(req.headers);
    const keyHash = carried?.key ? this.hashOf(req.socket, carried.key) : undefined;
    // A key this gateway knows already: whether the address is blocked is asked with the request's count, in
    // one round trip to the limits' store (RateLimitGuard). Anything else is checked first, so a blocked
    // address never makes the gateway ask the credits service about a key.
    const resolved = keyHash ? this.auth.cached(keyHash) : undefined;
    if (resolved) {
      req.addressToCheck = ip;
      authenticate(req, resolved, override);
      return true;
    }
    return this.resolve(req, responseOf(context), ip, keyHash, carried, override);
  }

  private hashOf(connection: Socket, key: string): string {
    const last = connectionKeys.get(connection);
    if (last?.key === key) return last.hash;
    const hash = this.auth.hash(key);
    connectionKeys.set(connection, { key, hash });
    return hash;
  }

  private async resolve(
    req: GatewayRequest,
    res: Response,
    ip: string,
    keyHash: string | undefined,
    carried: CarriedKey,
    override: ReturnType<typeof requestedStyle>,
  ): Promise<boolean> {
    const blocked = await this.limits.authBlocked(ip);
    if (blocked) throw tooManyAuthFailures(res, blocked.retryAfter);
    const resolved = keyHash ? await this.auth.resolve(keyHash, req.requestId) : undefined;
    if (!resolved) {
      const failure = await this.limits.recordAuthFailure(ip);
      if (!failure.allowed) throw tooManyAuthFailures(res, failure.retryAfter);
      throw new DomainError(
        'INVALID_API_KEY',
        carried ? 'The API key is invalid or revoked' : 'An API key is required (SVC-API-KEY header)',
      );
    }
    authenticate(req, resolved, override);
    return true;
  }
}

/** The request's auth context, and its style: the one it asked for, else the key's default. */
function authenticate(
  req: GatewayRequest,
  resolved: ResolvedKey,
  override: ReturnType<typeof requestedStyle>,
): void {
  req.auth = {
    accountId: resolved.accountId,
    apiKeyId: resolved.apiKeyId,
    apiKeyName: resolved.apiKeyName,
    plan: resolved.plan,
    defaultStyle: resolved.style,
    mode: resolved.mode,
    scope: resolved.scope,
    requestId: req.requestId,
  };
  req.style = override ?? resolved.style;
}
