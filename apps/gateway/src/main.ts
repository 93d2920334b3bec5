import 'reflect-metadata';
import { runMain } from '@emailverify/service-kit';
import { createGatewayApp } from './bootstrap';
import { defaultConsoleDir } from './console/console';
import { gatewayConfig } from './config';

runMain('gateway', async () => {
  const loaded = gatewayConfig.load();
  const config = { ...loaded, CONSOLE_DIR: loaded.CONSOLE_DIR ?? defaultConsoleDir(__dirname) };
  const app = await createGatewayApp(config);
  await app.listen(config.PORT, config.HOST);
  process.stdout.write(
    `${JSON.stringify({ level: 30, service: 'gateway', msg: 'gateway started', url: config.PUBLIC_BASE_URL, docs: `${config.PUBLIC_BASE_URL}/docs`, console: `${config.PUBLIC_BASE_URL}/console` })}\n`,
  );
});
