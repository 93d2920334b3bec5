import { NestFactory } from '@nestjs/core';
import { describe, expect, it } from 'vitest';
import { creditsModule } from './app.module';
import { creditsConfig } from './config';

describe('creditsModule', () => {
  it('gives every class of the service what its constructor asks for', async () => {
    // Preview: the dependency graph is resolved (a missing provider or token fails), nothing is constructed,
    // so no database or NATS is needed.
    const module = creditsModule(creditsConfig.load({ LOG_LEVEL: 'silent' }));
    const options = { preview: true, logger: false, abortOnError: false } as const;
    await expect(NestFactory.createApplicationContext(module, options)).resolves.toBeDefined();
  });
});
