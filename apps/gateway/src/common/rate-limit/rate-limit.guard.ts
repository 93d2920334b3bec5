import { type CanActivate, type ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { DomainError } from '@emailverify/contracts';
import type { Response } from 'express';
import type { GatewayRequest } from '../http/request-context';
import { clientAddressKey } from './client-address';
import { routePolicy } from '../http/route-policy';
import { setRateLimitHeaders } from './rate-limit-headers';
import { requestedStyle } from '../http/style';
import {
  type Admission,
  type LimitDecision,
  RateLimiterService,
  tooManyAuthFailures,
} from './rate-limiter.service';

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

  /** Synchronous (no promise for Nest to await) when the limits are kept in this process. */
  canActivate(context: ExecutionContext): boolean | Promise<boolean> {
    const req = context.switchToHttp().getRequest<GatewayRequest>();
    const res = context.switchToHttp().getResponse<Response>();
    if (req.auth) {
      const policy = routePolicy(this.reflector, context);
      const now = this.limits.admitNow(policy.rateClass, req.auth.apiKeyId, req.addressToCheck);
      if (now) return this.admitted(req, res, now);
      return this.limits
        .admit(policy.rateClass, req.auth.apiKeyId, req.addressToCheck)
        .then((admission) => this.admitted(req, res, admission));
    }
    if (routePolicy(this.reflector, context).perAddress) {
      return this.limits
        .consumeDownload(clientAddressKey(req))
        .then((decision) => this.apply(req, res, decision));
    }
    return true; // public route without a limit (health, metrics, docs)
  }

  private admitted(req: GatewayRequest, res: Response, admitted: Admission): boolean {
    if (admitted.blocked) {
      // Refused as the ApiKeyGuard refuses a blocked address: unauthenticated, in the requested style.
      req.auth = undefined;
      req.style = requestedStyle(req);
      throw tooManyAuthFailures(res, admitted.blocked.retryAfter);
    }
    return this.apply(req, res, admitted.decision);
  }

  private apply(req: GatewayRequest, res: Response, decision: LimitDecision): boolean {
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
}
