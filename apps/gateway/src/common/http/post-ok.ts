import { applyDecorators, HttpCode, Post } from '@nestjs/common';

/** A POST route of the API: every one answers 200 (Nest's default for POST is 201). */
export const PostOk = (path?: string): MethodDecorator => applyDecorators(Post(path), HttpCode(200));
