import 'reflect-metadata';
import { createLogger, startService } from '@emailverify/service-kit';
import { VerifierAppModule } from './app.module';
import { loadVerifierConfig } from './config';

async function main(): Promise<void> {
  const config = loadVerifierConfig();
  await startService({
    name: 'verifier',
    module: VerifierAppModule.forRoot(config),
    port: config.HTTP_PORT,
    logger: createLogger('verifier', config.LOG_LEVEL),
  });
}

main().catch((err: unknown) => {
  process.stderr.write(
    `verifier failed to start: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`,
  );
  process.exit(1);
});
