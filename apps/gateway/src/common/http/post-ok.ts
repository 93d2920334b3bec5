import { applyDecorators, HttpCode, Post } from '@nestjs/common';
import { IdempotencyKeyHeader } from '../idempotency/idempotency-key.header';

/** A POST route of the API: every one answers 200 (Nest's default for POST is 201) and takes an Idempotency-Key. */
export const PostOk = (path?: string): MethodDecorator =>
  applyDecorators(Post(path), HttpCode(200), IdempotencyKeyHeader());
