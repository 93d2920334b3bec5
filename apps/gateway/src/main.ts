import 'reflect-metadata';
import { createGatewayApp } from './bootstrap';
import { loadGatewayConfig } from './config';

async function main(): Promise<void> {
  const config = loadGatewayConfig();
  const app = await createGatewayApp(config);
  await app.listen(config.PORT, config.HOST);
  process.stdout.write(
    `${JSON.stringify({ level: 30, service: 'gateway', msg: 'gateway started', url: config.PUBLIC_BASE_URL, docs: `${config.PUBLIC_BASE_URL}/docs` })}\n`,
  );
}

main().catch((err: unknown) => {
  process.stderr.write(
    `gateway failed to start: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`,
  );
  process.exit(1);
});
