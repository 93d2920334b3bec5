// Second baseline of the gateway benchmark: a minimal NestJS + @nestjs/platform-express application with one
// controller doing the same lookup as GET /v1/verify/disposable and sending the same envelope, with Nest's
// defaults and nothing else (no auth, limits, styles, validation pipe, interceptors, logging or metrics). The
// gateway against it is the cost of what the gateway puts on the path beyond Nest and Express themselves.
// Runs as its own process; prints {"port":N} once listening on 127.0.0.1 and exits when its stdin closes or on
// SIGTERM.
import 'reflect-metadata';
import { Controller, Get, Module, Query, Res } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import type { Response } from 'express';
import { DISPOSABLE_PATH, disposableReply, serveUntilParentEnds } from './disposable-reply';

@Controller()
class DisposableController {
  @Get(DISPOSABLE_PATH)
  disposable(@Query('email') email: unknown, @Res({ passthrough: true }) res: Response): unknown {
    const { status, body } = disposableReply(typeof email === 'string' ? email : '');
    res.status(status);
    return body;
  }
}

@Module({ controllers: [DisposableController] })
class DisposableModule {}

async function main(): Promise<void> {
  const app = await NestFactory.create<NestExpressApplication>(DisposableModule, { logger: false });
  app.disable('x-powered-by');
  serveUntilParentEnds(
    async () => {
      await app.listen(0, '127.0.0.1');
      return (app.getHttpServer().address() as { port: number }).port;
    },
    () => app.close(),
  );
}

void main();
