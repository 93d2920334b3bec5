import type { ResponseStyle } from '@emailverify/contracts';
import type { Request } from 'express';

export interface AuthContext {
  accountId: string;
  apiKeyId: string;
  apiKeyName: string;
  plan: string;
  /** The key's default style; a request header may override it. */
  defaultStyle: ResponseStyle;
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
}

export const STYLE_HEADER = 'svc-response-style';
