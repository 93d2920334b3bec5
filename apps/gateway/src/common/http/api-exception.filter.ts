import { randomUUID } from 'node:crypto';
import {
  type ArgumentsHost,
  Catch,
  type ExceptionFilter,
  HttpException,
  HttpStatus,
  Inject,
} from '@nestjs/common';
import { DomainError, type ErrorCode } from '@emailverify/contracts';
import { LOGGER } from '@emailverify/service-kit';
import type { Response } from 'express';
import type { Logger } from 'pino';
import { renderError } from './error-body';
import { ReplayedReply, sendReplay } from '../idempotency/idempotency.service';
import type { GatewayRequest } from './request-context';
import { renderStyle } from './style';

/** The one exception filter of the gateway: every failure leaves in the caller's response style. */
@Catch()
export class ApiExceptionFilter implements ExceptionFilter {
  constructor(@Inject(LOGGER) private readonly logger: Logger) {}

  catch(exception: unknown, host: ArgumentsHost): void {
    const req = host.switchToHttp().getRequest<GatewayRequest>();
    const res = host.switchToHttp().getResponse<Response>();
    if (exception instanceof ReplayedReply && !res.headersSent) return sendReplay(res, exception.reply);
    const error = this.toDomainError(exception, req);
    const { status, body } = renderError(renderStyle(req), error.code, error.message, error.details);
    if (res.headersSent) {
      res.end();
      return;
    }
    // Whatever a handler set for a reply it did not send (a CSV's type and disposition) is not this reply's.
    for (const name of res.getHeaderNames()) {
      if (name.startsWith('content-')) res.removeHeader(name);
    }
    res.status(status).json(body);
  }

  private toDomainError(exception: unknown, req: GatewayRequest): DomainError {
    if (exception instanceof DomainError) return exception;
    if (exception instanceof HttpException) {
      const status = exception.getStatus();
      const code = httpStatusCode(status);
      if (code) return new DomainError(code, httpMessage(exception, req));
    }
    const multer = multerError(exception);
    if (multer) return multer;
    const errorId = randomUUID();
    this.logger.error(
      { err: exception, errorId, requestId: req.requestId, method: req.method, path: req.path },
      'unhandled error',
    );
    return new DomainError('INTERNAL_ERROR', `An internal error occurred (error id ${errorId})`);
  }
}

function httpStatusCode(status: number): ErrorCode | undefined {
  switch (status) {
    case HttpStatus.BAD_REQUEST:
    case HttpStatus.METHOD_NOT_ALLOWED:
    case HttpStatus.UNSUPPORTED_MEDIA_TYPE:
    case HttpStatus.UNPROCESSABLE_ENTITY:
      return 'INVALID_REQUEST';
    case HttpStatus.UNAUTHORIZED:
      return 'INVALID_API_KEY';
    case HttpStatus.NOT_FOUND:
      return 'NOT_FOUND';
    case HttpStatus.PAYLOAD_TOO_LARGE:
      return 'PAYLOAD_TOO_LARGE';
    case HttpStatus.TOO_MANY_REQUESTS:
      return 'RATE_LIMIT_EXCEEDED';
    default:
      return undefined;
  }
}

function httpMessage(exception: HttpException, req: GatewayRequest): string {
  if (exception.getStatus() === HttpStatus.NOT_FOUND) return `No such endpoint: ${req.method} ${req.path}`;
  const response = exception.getResponse();
  if (typeof response === 'object' && response !== null && 'message' in response) {
    const message = (response as { message: unknown }).message;
    return Array.isArray(message) ? message.join('; ') : String(message);
  }
  return exception.message;
}

function multerError(exception: unknown): DomainError | undefined {
  const e = exception as { name?: string; code?: string; message?: string; field?: string };
  if (e?.name !== 'MulterError') return undefined;
  if (e.code === 'LIMIT_FILE_SIZE')
    return new DomainError('PAYLOAD_TOO_LARGE', 'The file exceeds the upload size limit');
  return new DomainError(
    'INVALID_REQUEST',
    `${e.message ?? 'Invalid upload'}${e.field ? ` (field ${e.field})` : ''}`,
  );
}
