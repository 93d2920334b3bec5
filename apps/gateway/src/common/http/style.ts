import { createParamDecorator, type ExecutionContext } from '@nestjs/common';
import { DomainError, isResponseStyle, type ResponseStyle } from '@emailverify/contracts';
import { type GatewayRequest, requestOf, STYLE_HEADER } from './request-context';

/** The style asked for by header, or undefined; an unknown value is a client error. */
export function requestedStyle(req: GatewayRequest): ResponseStyle | undefined {
  const raw = req.headers[STYLE_HEADER];
  if (raw === undefined) return undefined;
  const value = (Array.isArray(raw) ? raw[0] : raw)?.trim().toLowerCase();
  if (isResponseStyle(value)) return value;
  throw new DomainError('INVALID_REQUEST', `SVC-Response-Style must be "current" or "legacy"`, {
    field: 'SVC-Response-Style',
  });
}

/** The style to render with, even when the request failed before authentication. */
export function renderStyle(req: GatewayRequest): ResponseStyle {
  if (req.style) return req.style;
  try {
    return requestedStyle(req) ?? req.auth?.defaultStyle ?? 'current';
  } catch {
    return 'current';
  }
}

/** The style the reply is rendered in (`@Style() style: ResponseStyle`), for handlers that write it themselves. */
export const Style = createParamDecorator((_data: unknown, ctx: ExecutionContext): ResponseStyle =>
  renderStyle(requestOf(ctx)),
);
