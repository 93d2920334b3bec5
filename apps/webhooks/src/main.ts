import 'reflect-metadata';
import { createLogger, startService } from '@emailverify/service-kit';
import { WebhooksAppModule } from './app.module';
import { loadWebhooksConfig } from './config';

async function main(): Promise<void> {
  const config = loadWebhooksConfig();
  await startService({
    name: 'webhooks',
    module: WebhooksAppModule.forRoot(config),
    port: config.HTTP_PORT,
    logger: createLogger('webhooks', config.LOG_LEVEL),
  });
}

main().catch((err: unknown) => {
  process.stderr.write(
    `webhooks failed to start: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`,
  );
  process.exit(1);
});
