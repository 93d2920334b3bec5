import { DomainError } from '@emailverify/contracts';
import { MessageBus } from '@emailverify/messaging';
import { baseConfigSchema, loadConfig } from '@emailverify/service-kit';
import { runAdminCommand } from './commands';

async function main(): Promise<number> {
  const config = loadConfig(baseConfigSchema);
  let bus: MessageBus | undefined;
  try {
    bus = await MessageBus.connect({
      url: config.NATS_URL,
      user: config.NATS_USER,
      pass: config.NATS_PASSWORD,
      namespace: config.NATS_NAMESPACE,
      name: 'admin-cli',
      requestTimeoutMs: 10_000,
    });
    const result = await runAdminCommand(bus, process.argv.slice(2));
    process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
    return 0;
  } catch (err) {
    const error =
      err instanceof DomainError
        ? { code: err.code, message: err.message }
        : { code: 'INTERNAL_ERROR', message: err instanceof Error ? err.message : String(err) };
    process.stderr.write(`${JSON.stringify({ error }, null, 2)}\n`);
    return 1;
  } finally {
    await bus?.close();
  }
}

void main().then((code) => process.exit(code));
