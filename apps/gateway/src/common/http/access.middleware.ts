import { randomUUID } from 'node:crypto';
import type { NextFunction, Response } from 'express';
import type { GatewayRequest } from './request-context';

const VALID_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** Takes X-Request-Id from the caller (when sane) or makes one; it travels to every service and back. */
export function requestIdMiddleware(req: GatewayRequest, res: Response, next: NextFunction): void {
  const given = req.headers['x-request-id'];
  const id = typeof given === 'string' && VALID_ID.test(given) ? given : randomUUID();
  req.requestId = id;
  res.setHeader('X-Request-Id', id);
  next();
}
