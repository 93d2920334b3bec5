import { type CanActivate, type ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { DomainError } from '@emailverify/contracts';
import { requestOf } from '../http/request-context';
import { routePolicy } from '../http/route-policy';

/**
 * Refuses a key of the `verify` scope on the routes that manage the account (@FullScope(), which every
 * ManagementController has: keys, webhooks). It runs after the rate limit, so the refusal carries the rate-limit
 * headers and counts like any request, and before the body is read: nothing of a refused request is parsed.
 */
@Injectable()
export class ScopeGuard implements CanActivate {
  constructor(private readonly reflector: Reflector) {}

  canActivate(context: ExecutionContext): boolean {
    const { auth } = requestOf(context);
    if (!auth || auth.scope === 'full' || !routePolicy(this.reflector, context).fullScope) return true;
    throw new DomainError(
      'INSUFFICIENT_SCOPE',
      'This API key has the verify scope: it may verify and read credits, not manage keys or webhooks',
      { scope: auth.scope, required: 'full' },
    );
  }
}
