import { type CanActivate, type ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { requestOf, responseOf } from '../http/request-context';
import { routePolicy } from '../http/route-policy';
import { renderStyle } from '../http/style';
import { fingerprint, IDEMPOTENCY_HEADER, jsonBodyDigest, parseIdempotencyKey } from './idempotency';
import { IdempotencyService } from './idempotency.service';

const KEYED_METHODS = new Set(['POST', 'DELETE']);

/**
 * Idempotency-Key on every authenticated POST and DELETE: the last guard, so the key is checked once the caller
 * is known (keys are per account) and a JSON body has been read (its digest is part of the request). An upload's
 * file is read later, by its route's interceptor: its key is held now and its digest checked in the handler.
 */
@Injectable()
export class IdempotencyGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    private readonly idempotency: IdempotencyService,
  ) {}

  /** Synchronous for every request without a key. */
  canActivate(context: ExecutionContext): boolean | Promise<boolean> {
    if (context.getType() !== 'http') return true;
    const req = requestOf(context);
    if (!KEYED_METHODS.has(req.method) || !req.auth) return true;
    const key = parseIdempotencyKey(req.headersDistinct[IDEMPOTENCY_HEADER]);
    if (key === undefined) return true;
    const requestFingerprint = routePolicy(this.reflector, context).rawBody
      ? undefined
      : fingerprint({
          method: req.method,
          url: req.originalUrl,
          style: renderStyle(req),
          bodyDigest: jsonBodyDigest(req.body),
        });
    return this.idempotency
      .begin(req, responseOf(context), req.auth.accountId, key, requestFingerprint)
      .then(() => true);
  }
}
