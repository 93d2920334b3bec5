import 'reflect-metadata';
import { createLogger, startService } from '@emailverify/service-kit';
import { FileJobsAppModule } from './app.module';
import { loadFileJobsConfig } from './config';

async function main(): Promise<void> {
  const config = loadFileJobsConfig();
  await startService({
    name: 'file-jobs',
    module: FileJobsAppModule.forRoot(config),
    port: config.HTTP_PORT,
    logger: createLogger('file-jobs', config.LOG_LEVEL),
  });
}

main().catch((err: unknown) => {
  process.stderr.write(
    `file-jobs failed to start: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`,
  );
  process.exit(1);
});
