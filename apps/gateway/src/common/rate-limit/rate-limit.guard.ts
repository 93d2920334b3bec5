import { type CanActivate, type ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { DomainError } from '@emailverify/contracts';
import type { Response } from 'express';
import { type GatewayRequest, requestOf, responseOf } from '../http/request-context';
import { clientAddressKey } from './client-address';
import { routePolicy } from '../http/route-policy';
import { setRateLimitHeaders } from './rate-limit-headers';
import { requestedStyle } from '../http/style';
import { type LimitDecision, RateLimiterService, tooManyAuthFailures } from './rate-limiter.service';

/**
 * Counts the request against the key's limit for the route's class; the headers go on every reply. Public
 * routes marked @PerAddressLimit() (the signed-link download) count per client address instead.
 */
@Injectable()
export class RateLimitGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    private readonly limits: RateLimiterService,
  ) {}

  /** The count's promise, continued without further async functions (this runs on every request). */
  canActivate(context: ExecutionContext): boolean | Promise<boolean> {
    const req = requestOf(context);
    const res = responseOf(context);
    const policy = routePolicy(this.reflector, context);
    if (req.auth) {
      return this.limits.admit(policy.rateClass, req.auth.apiKeyId, req.addressToCheck).then((admitted) => {
        if (admitted.blocked) {
          // Refused as the ApiKeyGuard refuses a blocked address: unauthenticated, in the requested style.
          req.auth = undefined;
          req.style = requestedStyle(req);
          throw tooManyAuthFailures(res, admitted.blocked.retryAfter);
        }
        return decide(req, res, admitted.decision);
      });
    }
    if (policy.perAddress) {
      return this.limits
        .consumeDownload(clientAddressKey(req))
        .then((decision) => decide(req, res, decision));
    }
    return true; // public route without a limit (health, metrics, docs)
  }
}

/** The window on the request and in the reply's headers; a request over the limit is refused. */
function decide(req: GatewayRequest, res: Response, decision: LimitDecision): boolean {
  req.rateLimit = decision;
  setRateLimitHeaders(res, decision);
  if (decision.allowed) return true;
  res.setHeader('Retry-After', String(decision.retryAfter));
  throw new DomainError(
    'RATE_LIMIT_EXCEEDED',
    `Rate limit of ${decision.limit} requests per minute exceeded`,
    {
      retry_after: decision.retryAfter,
    },
  );
}
