import { type CanActivate, type ExecutionContext, Inject, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { DomainError } from '@emailverify/contracts';
import express from 'express';
import { GATEWAY_CONFIG, type GatewayConfig } from '../../config';
import { type GatewayRequest, requestOf, responseOf } from './request-context';
import { routePolicy } from './route-policy';

const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH']);

/**
 * Parses JSON bodies after authentication and rate limiting (the last of the guards), so unauthenticated
 * callers never make the gateway read a body, and body errors render in the caller's response style.
 */
@Injectable()
export class JsonBodyGuard implements CanActivate {
  private readonly parse: express.RequestHandler;

  constructor(
    private readonly reflector: Reflector,
    @Inject(GATEWAY_CONFIG) config: Readonly<GatewayConfig>,
  ) {
    this.parse = express.json({ limit: config.JSON_BODY_LIMIT_BYTES, strict: true, type: () => true });
  }

  /** Synchronous (no promise for Nest to await) when there is no body to read. */
  canActivate(context: ExecutionContext): boolean | Promise<boolean> {
    if (context.getType() !== 'http') return true;
    const req = requestOf(context);
    if (!BODY_METHODS.has(req.method) || routePolicy(this.reflector, context).rawBody) return true;
    const hasBody =
      Number(req.headers['content-length'] ?? 0) > 0 || req.headers['transfer-encoding'] !== undefined;
    if (!hasBody) {
      req.body = {};
      return true;
    }
    return this.read(req, context);
  }

  private async read(req: GatewayRequest, context: ExecutionContext): Promise<boolean> {
    const type = req.headers['content-type'] ?? '';
    if (!/^application\/([\w.+-]+\+)?json\b/i.test(type)) {
      throw new DomainError(
        'INVALID_REQUEST',
        'The request body must be JSON (Content-Type: application/json)',
      );
    }
    await new Promise<void>((resolve, reject) => {
      this.parse(req, responseOf(context), (err?: unknown) => (err ? reject(bodyError(err)) : resolve()));
    });
    if (req.body === null || typeof req.body !== 'object' || Array.isArray(req.body)) {
      throw new DomainError('INVALID_REQUEST', 'The request body must be a JSON object');
    }
    checkJsonShape(req.body);
    return true;
  }
}

/** Deeper JSON than this is refused before validation (or anything recursive) walks it. */
const MAX_JSON_DEPTH = 32;
/** Keys that reach object prototypes when copied or merged; refused like any unknown field. */
const FORBIDDEN_KEYS = new Set(['__proto__', 'constructor', 'prototype']);

/**
 * Checks a parsed body without recursion (a hostile depth cannot overflow the stack here): at most
 * MAX_JSON_DEPTH levels of objects and arrays, and no prototype-reaching key at any level.
 */
export function checkJsonShape(body: object): void {
  const stack: Array<{ value: object; depth: number; path: string }> = [{ value: body, depth: 1, path: '' }];
  for (let item = stack.pop(); item; item = stack.pop()) {
    if (item.depth > MAX_JSON_DEPTH) {
      throw new DomainError('INVALID_REQUEST', `JSON nesting deeper than ${MAX_JSON_DEPTH} levels`, {
        field: 'body',
      });
    }
    for (const key of Object.keys(item.value)) {
      const path = Array.isArray(item.value)
        ? `${item.path}[${key}]`
        : item.path
          ? `${item.path}.${key}`
          : key;
      if (!Array.isArray(item.value) && FORBIDDEN_KEYS.has(key)) {
        throw new DomainError('INVALID_REQUEST', `property ${path} should not exist`, { field: path });
      }
      const child = (item.value as Record<string, unknown>)[key];
      if (child !== null && typeof child === 'object')
        stack.push({ value: child, depth: item.depth + 1, path });
    }
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
