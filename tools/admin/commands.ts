import { parseArgs } from 'node:util';
import { DomainError, isResponseStyle, type ResponseStyle, Subjects } from '@emailverify/contracts';
import type { MessageBus } from '@emailverify/messaging';

export const USAGE = `Usage: npm run admin -- <command> [options]

  create-account --name N --credits C [--style current|legacy] [--plan P]
  create-key     --account A [--name N] [--style current|legacy]
  add-credits    --account A --credits C
  set-style      --key K --style current|legacy      (K: key id or the key itself)
  revoke-key     --key K                             (K: key id or the key itself)
  list-keys      --account A

Every command prints JSON. NATS_URL and NATS_NAMESPACE select the installation.`;

type Options = Record<string, string | undefined>;

function required(options: Options, name: string): string {
  const value = options[name];
  if (!value) throw new DomainError('INVALID_REQUEST', `--${name} is required`);
  return value;
}

function credits(options: Options): number {
  const raw = required(options, 'credits');
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 0)
    throw new DomainError('INVALID_REQUEST', `--credits must be a whole number >= 0 (got "${raw}")`);
  return n;
}

function style(options: Options, isRequired = false): ResponseStyle | undefined {
  const value = isRequired ? required(options, 'style') : options.style;
  if (value === undefined) return undefined;
  if (!isResponseStyle(value))
    throw new DomainError('INVALID_REQUEST', `--style must be "current" or "legacy" (got "${value}")`);
  return value;
}

/** Runs one admin command against the credits service and returns what to print. */
export async function runAdminCommand(bus: MessageBus, argv: string[]): Promise<unknown> {
  const { positionals, values } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      name: { type: 'string' },
      credits: { type: 'string' },
      style: { type: 'string' },
      plan: { type: 'string' },
      account: { type: 'string' },
      key: { type: 'string' },
    },
  });
  const o = values as Options;
  const [command] = positionals;
  switch (command) {
    case 'create-account':
      return bus.request(Subjects.creditsAccountCreate, {
        name: required(o, 'name'),
        credits: credits(o),
        ...(style(o) ? { style: style(o) } : {}),
        ...(o.plan ? { plan: o.plan } : {}),
      });
    case 'create-key':
      return bus.request(Subjects.creditsKeyCreate, {
        accountId: required(o, 'account'),
        ...(o.name ? { name: o.name } : {}),
        ...(style(o) ? { style: style(o) } : {}),
      });
    case 'add-credits':
      return bus.request(Subjects.creditsBalanceAdd, {
        accountId: required(o, 'account'),
        credits: credits(o),
      });
    case 'set-style':
      return bus.request(Subjects.creditsKeySetStyle, {
        apiKeyId: required(o, 'key'),
        style: style(o, true)!,
      });
    case 'revoke-key':
      return bus.request(Subjects.creditsKeyRevoke, { apiKeyId: required(o, 'key') });
    case 'list-keys':
      return bus.request(Subjects.creditsKeyList, { accountId: required(o, 'account') });
    default:
      throw new DomainError('INVALID_REQUEST', command ? `Unknown command "${command}"\n${USAGE}` : USAGE);
  }
}
