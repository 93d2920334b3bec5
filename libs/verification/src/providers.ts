import { z } from 'zod';

/**
 * How the probe treats the mail hosts of one provider. A rule names its hosts by pattern: an exact host name
 * (`mx.example.net`) or a suffix (`*.example.net`, any name ending in `.example.net`).
 */
export interface ProviderRule {
  /** For messages and documentation only. */
  name: string;
  /** Host patterns; lowercase, without a trailing dot. */
  mx: readonly string[];
  /** Run the catch-all probe (RCPT to a random local part) after an accepted mailbox; default true. */
  catchAllProbe: boolean;
  /**
   * The provider answers 250 to RCPT for every local part and bounces later, so its acceptance proves nothing:
   * an accepted address is reported `catchall`, never `valid`. Default false.
   */
  acceptsAnyRecipient: boolean;
  /** Probe sessions open at once to one of its hosts, across all verifiers; default SMTP_MAX_CONCURRENCY_PER_MX. */
  maxConnections?: number;
}

const HOST_PATTERN = /^(\*\.)?([a-z0-9_-]+\.)*[a-z0-9_-]+$/;

const ruleSchema = z
  .object({
    name: z.string().min(1).max(100),
    mx: z
      .array(
        z
          .string()
          .transform((p) => p.trim().toLowerCase().replace(/\.$/, ''))
          .pipe(z.string().regex(HOST_PATTERN, 'a host name or *.suffix')),
      )
      .min(1),
    catchAllProbe: z.boolean().default(true),
    acceptsAnyRecipient: z.boolean().default(false),
    maxConnections: z.number().int().min(1).max(1000).optional(),
  })
  .strict();

/** A provider-rules file: `{ "rules": [ProviderRule, ...] }`. */
const rulesFileSchema = z.object({ rules: z.array(ruleSchema) }).strict();

/**
 * Validates the contents of a provider-rules file (already JSON-parsed). Throws an Error whose message names
 * the offending rule and field.
 */
export function parseProviderRules(json: unknown): ProviderRule[] {
  const parsed = rulesFileSchema.safeParse(json);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`);
    throw new Error(problems.join('; '));
  }
  return parsed.data.rules;
}

/**
 * Shipped rules, only where the provider's behaviour is well known. Hosts of a provider without a rule get
 * the defaults (probe catch-all, trust a 250, SMTP_MAX_CONCURRENCY_PER_MX).
 */
export const DEFAULT_PROVIDER_RULES: readonly ProviderRule[] = [
  {
    // Yahoo Mail, AOL and the domains they host: RCPT is answered 250 for any local part, the bounce comes later.
    name: 'Yahoo / AOL',
    mx: ['*.yahoodns.net'],
    catchAllProbe: false,
    acceptsAnyRecipient: true,
  },
  {
    // Consumer Gmail: unknown mailboxes get 550 5.1.1 and the service never accepts every local part, so
    // the catch-all probe would only spend a RCPT. Google Workspace domains (aspmx.l.google.com) keep it:
    // their owners can route unknown addresses to a catch-all mailbox.
    name: 'Gmail',
    mx: ['gmail-smtp-in.l.google.com', '*.gmail-smtp-in.l.google.com'],
    catchAllProbe: false,
    acceptsAnyRecipient: false,
  },
  {
    // Outlook.com / Hotmail consumer mailboxes: unknown ones get 550 5.5.0, never accepted wholesale. Microsoft
    // 365 tenants (*.mail.protection.outlook.com) keep the probe: without directory-based edge blocking a
    // tenant accepts every recipient.
    name: 'Outlook.com',
    mx: ['*.olc.protection.outlook.com'],
    catchAllProbe: false,
    acceptsAnyRecipient: false,
  },
];

/** The rules in force: the operator's (SMTP_PROVIDER_RULES_FILE) first, then the shipped ones; first match wins. */
export class ProviderRules {
  private readonly rules: readonly ProviderRule[];

  constructor(
    custom: readonly ProviderRule[] = [],
    shipped: readonly ProviderRule[] = DEFAULT_PROVIDER_RULES,
  ) {
    this.rules = [...custom, ...shipped];
  }

  /** The rule for a mail host name, if any. */
  match(host: string): ProviderRule | undefined {
    const name = host.trim().toLowerCase().replace(/\.$/, '');
    return this.rules.find((rule) => rule.mx.some((pattern) => matches(pattern, name)));
  }
}

function matches(pattern: string, host: string): boolean {
  if (pattern.startsWith('*.')) return host.endsWith(pattern.slice(1));
  return host === pattern;
}
