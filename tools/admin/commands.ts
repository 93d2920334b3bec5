import { parseArgs } from 'node:util';
import {
  type AccountId,
  asAccountId,
  isResponseStyle,
  KEY_SCOPES,
  type KeyScope,
  type ResponseStyle,
  Subjects,
} from '@emailverify/contracts';
import type { MessageBus } from '@emailverify/messaging';
import { DEFAULT_DOCTOR_DOMAIN, doctorRequest } from './doctor-request';

export const USAGE = `Usage: npm run admin -- <command> [options]

  create-account --name N --credits C [--style current|legacy] [--plan P]
  create-key     --account A [--name N] [--style current|legacy] [--sandbox] [--scope full|verify]
                 [--expires-at T]                    (T: an ISO timestamp; --sandbox: an ev_test_ key)
  add-credits    --account A --credits C
  set-style      --key K --style current|legacy      (K: key id or the key itself)
  revoke-key     --key K                             (K: key id or the key itself)
  list-keys      --account A
  doctor         [--domain D] [--mx H] [--egress-ip IP] [--json]

Every command but doctor prints JSON. NATS_URL and NATS_NAMESPACE select the installation (NATS_USER and
NATS_PASSWORD its admin user). --help prints this text and exits with status 2, as a mistake on the
command line does (the mistake told first, on stderr); a refusal by the service exits 1.

doctor checks this host for verification, with the verifier's settings (DNS_SERVERS, SMTP_PORT,
SMTP_HELO_NAME, DNSBL_IP_ZONES, ...) and without NATS: the DNS servers answer truthfully, port 25 of
an MX host of --domain (default ${DEFAULT_DOCTOR_DOMAIN}; or the host --mx) answers, SMTP_HELO_NAME resolves,
the egress address (--egress-ip, or the local end of the SMTP connection) has SMTP_HELO_NAME as PTR
and is on none of DNSBL_IP_ZONES. One line per check (ok, FAIL, warn), or JSON with --json;
exit status 0 when no check failed, 1 when one did.`;

/** A command line the CLI cannot run: told in plain text with the usage, exit status 2. */
export class UsageError extends Error {
  override name = 'UsageError';
}

type Options = Record<string, string | undefined>;

function required(options: Options, name: string): string {
  const value = options[name];
  if (!value) throw new UsageError(`--${name} is required`);
  return value;
}

/** --account: an account id (a UUID), told before connecting when it is not one. */
function account(options: Options): AccountId {
  const id = asAccountId(required(options, 'account'));
  if (!id) throw new UsageError('--account must be an account id (a UUID, as create-account printed it)');
  return id;
}

function credits(options: Options): number {
  const raw = required(options, 'credits');
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 0)
    throw new UsageError(`--credits must be a whole number >= 0 (got "${raw}")`);
  return n;
}

function style(options: Options, isRequired = false): ResponseStyle | undefined {
  const value = isRequired ? required(options, 'style') : options.style;
  if (value === undefined) return undefined;
  if (!isResponseStyle(value)) throw new UsageError(`--style must be "current" or "legacy" (got "${value}")`);
  return value;
}

function scope(value: string): KeyScope {
  if (!(KEY_SCOPES as readonly string[]).includes(value))
    throw new UsageError(`--scope must be "full" or "verify" (got "${value}")`);
  return value as KeyScope;
}

function expiresAt(value: string): string {
  const at = new Date(value);
  if (!/^\d{4}-\d{2}-\d{2}T/.test(value) || Number.isNaN(at.getTime()))
    throw new UsageError(
      `--expires-at must be an ISO timestamp such as 2027-01-31T00:00:00Z (got "${value}")`,
    );
  return at.toISOString();
}

export type AdminCommand =
  | { kind: 'help' }
  | { kind: 'run'; run: (bus: MessageBus) => Promise<unknown> }
  /** A command that needs no NATS: it prints its own output and decides the exit status. */
  | { kind: 'local'; run: () => Promise<{ code: number; output: string }> };

/**
 * Reads the command line without touching NATS, so `--help` and mistakes are answered at once; a mistake is a
 * UsageError naming it.
 */
export function parseAdminCommand(argv: string[]): AdminCommand {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      options: {
        help: { type: 'boolean', short: 'h' },
        name: { type: 'string' },
        credits: { type: 'string' },
        style: { type: 'string' },
        plan: { type: 'string' },
        account: { type: 'string' },
        key: { type: 'string' },
        domain: { type: 'string' },
        mx: { type: 'string' },
        'egress-ip': { type: 'string' },
        json: { type: 'boolean' },
        sandbox: { type: 'boolean' },
        scope: { type: 'string' },
        'expires-at': { type: 'string' },
      },
    });
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
  const { positionals, values } = parsed;
  const [command, ...extra] = positionals;
  if (values.help || command === 'help') return { kind: 'help' };
  if (!command) throw new UsageError('no command given');
  if (extra.length > 0) throw new UsageError(`unexpected argument "${extra[0]}"`);
  const o = values as Options;
  const run = (fn: (bus: MessageBus) => Promise<unknown>): AdminCommand => ({ kind: 'run', run: fn });
  switch (command) {
    case 'create-account': {
      const request = {
        name: required(o, 'name'),
        credits: credits(o),
        ...(style(o) ? { style: style(o)! } : {}),
        ...(o.plan ? { plan: o.plan } : {}),
      };
      return run((bus) => bus.request(Subjects.creditsAccountCreate, request));
    }
    case 'create-key': {
      const request = {
        accountId: account(o),
        ...(o.name ? { name: o.name } : {}),
        ...(style(o) ? { style: style(o)! } : {}),
        ...(values.sandbox ? { mode: 'sandbox' as const } : {}),
        ...(o.scope !== undefined ? { scope: scope(o.scope) } : {}),
        ...(o['expires-at'] !== undefined ? { expiresAt: expiresAt(o['expires-at']) } : {}),
      };
      return run((bus) => bus.request(Subjects.creditsKeyCreate, request));
    }
    case 'add-credits': {
      const request = { accountId: account(o), credits: credits(o) };
      return run((bus) => bus.request(Subjects.creditsBalanceAdd, request));
    }
    case 'set-style': {
      const request = { apiKeyId: required(o, 'key'), style: style(o, true)! };
      return run((bus) => bus.request(Subjects.creditsKeySetStyle, request));
    }
    case 'revoke-key': {
      const request = { apiKeyId: required(o, 'key') };
      return run((bus) => bus.request(Subjects.creditsKeyRevoke, request));
    }
    case 'list-keys': {
      const request = { accountId: account(o) };
      return run((bus) => bus.request(Subjects.creditsKeyList, request));
    }
    case 'doctor': {
      const request = doctorRequest(values, (message) => new UsageError(message));
      // The verification engine is loaded for doctor only: a usage error or --help answers without it.
      return { kind: 'local', run: async () => (await import('./doctor.js')).doctor(request) };
    }
    default:
      throw new UsageError(`unknown command "${command}"`);
  }
}

/**
 * What the CLI prints for a reply: the same fields with snake_case names, as the HTTP API names them
 * (`account_id`, `api_key`), while the replies between services are camelCase.
 */
export function printable(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(printable);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.entries(value).map(([k, v]) => [k.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`), printable(v)]),
  );
}
