import { NestFactory } from '@nestjs/core';
import { describe, expect, it } from 'vitest';
import { fileJobsModule } from './app.module';
import { fileJobsConfig } from './config';

describe('fileJobsModule', () => {
  it('gives every class of the service what its constructor asks for', async () => {
    // Preview: the dependency graph is resolved (a missing provider or token fails), nothing is constructed,
    // so no database or NATS is needed.
    const module = fileJobsModule(
      fileJobsConfig.load({ LOG_LEVEL: 'silent', DOWNLOAD_SIGNING_SECRET: 'module-spec-download-secret' }),
    );
    const options = { preview: true, logger: false, abortOnError: false } as const;
    await expect(NestFactory.createApplicationContext(module, options)).resolves.toBeDefined();
  });
});
