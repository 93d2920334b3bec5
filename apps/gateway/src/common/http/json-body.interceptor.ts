import {
  type CallHandler,
  type ExecutionContext,
  Inject,
  Injectable,
  type NestInterceptor,
  SetMetadata,
} from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { DomainError } from '@emailverify/contracts';
import express from 'express';
import type { Observable } from 'rxjs';
import { GATEWAY_CONFIG, type GatewayConfig } from '../../config';
import type { GatewayRequest } from './request-context';

export const RAW_BODY = 'emailverify:raw-body';
/** Routes that read the request stream themselves (multipart uploads). */
export const RawBody = (): MethodDecorator => SetMetadata(RAW_BODY, true);

const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH']);

/**
 * Parses JSON bodies after authentication and rate limiting, so unauthenticated callers never make the
 * gateway read a body, and body errors render in the caller's response style.
 */
@Injectable()
export class JsonBodyInterceptor implements NestInterceptor {
  private readonly parse: express.RequestHandler;

  constructor(
    private readonly reflector: Reflector,
    @Inject(GATEWAY_CONFIG) config: Readonly<GatewayConfig>,
  ) {
    this.parse = express.json({ limit: config.JSON_BODY_LIMIT_BYTES, strict: true, type: () => true });
  }

  async intercept(context: ExecutionContext, next: CallHandler): Promise<Observable<unknown>> {
    if (context.getType() !== 'http') return next.handle();
    const req = context.switchToHttp().getRequest<GatewayRequest>();
    if (!BODY_METHODS.has(req.method) || this.reflector.get<boolean>(RAW_BODY, context.getHandler()))
      return next.handle();
    const hasBody =
      Number(req.headers['content-length'] ?? 0) > 0 || req.headers['transfer-encoding'] !== undefined;
    if (!hasBody) {
      req.body = {};
      return next.handle();
    }
    const type = req.headers['content-type'] ?? '';
    if (!/^application\/([\w.+-]+\+)?json\b/i.test(type)) {
      throw new DomainError(
        'INVALID_REQUEST',
        'The request body must be JSON (Content-Type: application/json)',
      );
    }
    await new Promise<void>((resolve, reject) => {
      this.parse(req, context.switchToHttp().getResponse(), (err?: unknown) =>
        err ? reject(bodyError(err)) : resolve(),
      );
    });
    if (req.body === null || typeof req.body !== 'object' || Array.isArray(req.body)) {
      throw new DomainError('INVALID_REQUEST', 'The request body must be a JSON object');
    }
    return next.handle();
  }
}

function bodyError(err: unknown): DomainError {
  const e = err as { type?: string; limit?: number; message?: string };
  switch (e.type) {
    case 'entity.too.large':
      return new DomainError(
        'PAYLOAD_TOO_LARGE',
        `The request body exceeds ${e.limit ?? 'the limit of'} bytes`,
      );
    case 'entity.parse.failed':
      return new DomainError('INVALID_REQUEST', `Malformed JSON: ${e.message ?? 'could not parse the body'}`);
    case 'encoding.unsupported':
    case 'charset.unsupported':
      return new DomainError('INVALID_REQUEST', e.message ?? 'Unsupported body encoding');
    case 'request.aborted':
      return new DomainError('INVALID_REQUEST', 'The request body was not received completely');
    default:
      return new DomainError('INVALID_REQUEST', e.message ?? 'The request body could not be read');
  }
}
