import { NestFactory } from '@nestjs/core';
import { describe, expect, it } from 'vitest';
import { webhooksModule } from './app.module';
import { webhooksConfig } from './config';

describe('webhooksModule', () => {
  it('gives every class of the service what its constructor asks for', async () => {
    // Preview: the dependency graph is resolved (a missing provider or token fails), nothing is constructed,
    // so no database or NATS is needed.
    const module = webhooksModule(
      webhooksConfig.load({ LOG_LEVEL: 'silent', WEBHOOK_SECRET_KEY: '42'.repeat(32) }),
    );
    const options = { preview: true, logger: false, abortOnError: false } as const;
    await expect(NestFactory.createApplicationContext(module, options)).resolves.toBeDefined();
  });
});
