import { DomainError } from '@emailverify/contracts';
import type { MessageBus } from '@emailverify/messaging';
import { baseConfigSchema, loadConfig } from '@emailverify/service-kit/config';
import { type AdminCommand, parseAdminCommand, printable, USAGE, UsageError } from './commands';

/** NATS_URL as it may be shown: without a user or password. */
function shownUrl(url: string): string {
  return url
    .split(',')
    .map((server) => server.trim().replace(/\/\/[^@/]*@/, '//'))
    .join(',');
}

async function main(): Promise<number> {
  let command: AdminCommand;
  try {
    command = parseAdminCommand(process.argv.slice(2));
  } catch (err) {
    if (!(err instanceof UsageError)) throw err;
    process.stderr.write(`error: ${err.message}\n\n${USAGE}\n`);
    return 2;
  }
  if (command.kind === 'help') {
    process.stdout.write(`${USAGE}\n`);
    return 2;
  }
  if (command.kind === 'local') {
    try {
      const { code, output } = await command.run();
      process.stdout.write(output);
      return code;
    } catch (err) {
      process.stderr.write(`error: ${err instanceof Error ? err.message : String(err)}\n`);
      return 1;
    }
  }
  let config;
  try {
    config = loadConfig(baseConfigSchema);
  } catch (err) {
    process.stderr.write(`error: ${err instanceof Error ? err.message : String(err)}\n`);
    return 1;
  }
  let bus: MessageBus | undefined;
  try {
    try {
      // NATS's client is loaded only for a command that talks to the service.
      const { MessageBus } = await import('@emailverify/messaging');
      bus = await MessageBus.connect({
        url: config.NATS_URL,
        user: config.NATS_USER,
        pass: config.NATS_PASSWORD,
        namespace: config.NATS_NAMESPACE,
        name: 'admin-cli',
        requestTimeoutMs: 10_000,
      });
    } catch (err) {
      process.stderr.write(
        `error: cannot reach NATS at ${shownUrl(config.NATS_URL)} (NATS_URL; installation NATS_NAMESPACE=${config.NATS_NAMESPACE}): ${err instanceof Error ? err.message : String(err)}\n`,
      );
      return 1;
    }
    const result = await command.run(bus);
    process.stdout.write(`${JSON.stringify(printable(result), null, 2)}\n`);
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
