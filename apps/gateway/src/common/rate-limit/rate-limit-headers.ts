import type { Response } from 'express';
import type { RateLimitState } from '../http/request-context';

export function setRateLimitHeaders(res: Response, state: RateLimitState): void {
  res.setHeader('X-RateLimit-Limit', String(state.limit));
  res.setHeader('X-RateLimit-Remaining', String(state.remaining));
  res.setHeader('X-RateLimit-Reset', String(state.resetAt));
}
