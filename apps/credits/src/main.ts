import 'reflect-metadata';
import { createLogger, startService } from '@emailverify/service-kit';
import { CreditsAppModule } from './app.module';
import { loadCreditsConfig } from './config';

async function main(): Promise<void> {
  const config = loadCreditsConfig();
  await startService({
    name: 'credits',
    module: CreditsAppModule.forRoot(config),
    port: config.HTTP_PORT,
    logger: createLogger('credits', config.LOG_LEVEL),
  });
}

main().catch((err: unknown) => {
  process.stderr.write(
    `credits failed to start: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`,
  );
  process.exit(1);
});
