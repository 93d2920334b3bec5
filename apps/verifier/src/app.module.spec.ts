import { NestFactory } from '@nestjs/core';
import { describe, expect, it } from 'vitest';
import { verifierModule } from './app.module';
import { verifierConfig } from './config';

describe('verifierModule', () => {
  it('gives every class of the service what its constructor asks for', async () => {
    // Preview: the dependency graph is resolved (a missing provider or token fails), nothing is constructed,
    // so no database or NATS is needed.
    const module = verifierModule(verifierConfig.load({ LOG_LEVEL: 'silent' }));
    const options = { preview: true, logger: false, abortOnError: false } as const;
    await expect(NestFactory.createApplicationContext(module, options)).resolves.toBeDefined();
  });
});
