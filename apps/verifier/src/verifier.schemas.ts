import { isIP } from 'node:net';
import { accountIdField, parseWith } from '@emailverify/service-kit';
import { z } from 'zod';

const accountId = accountIdField();
/** Asked with a sandbox key (absent: live). */
const sandbox = z.boolean().optional();

/** Payload validation on receipt. Address syntax is the service's own check (INVALID_EMAIL), not the schema's. */
export const VerifierPayloads = {
  single: parseWith(
    z.strictObject({
      accountId,
      email: z.string().max(4096),
      checkSmtp: z.boolean(),
      forceRefresh: z.boolean(),
      sandbox,
    }),
  ),
  bulk: parseWith(
    z.strictObject({
      accountId,
      emails: z.array(z.string().max(4096)).max(10_000),
      checkSmtp: z.boolean(),
      sandbox,
    }),
  ),
  /** Domain syntax is the service's own check (INVALID_REQUEST naming `domain`), not the schema's. */
  domain: parseWith(
    z.strictObject({ accountId, domain: z.string().max(4096), checkSmtp: z.boolean(), sandbox }),
  ),
};

/** A name as the DNS gives it (MX exchanges, kept as found): bounded, printable, no spaces. */
const dnsName = z
  .string()
  .min(1)
  .max(255)
  .regex(/^[\x21-\x7e]+$/);
/** How many MX records a shared fact may carry: more than any real domain publishes. */
const MAX_SHARED_MX = 100;

/**
 * The engine's DomainFacts as another verifier broadcast them (Broadcasts.domainFacts): checked, field by field
 * and with bounds, before they are taken, since what they name is where this process may connect. Transient
 * failures are never shared.
 */
const domainFacts = z.discriminatedUnion('kind', [
  z.strictObject({
    kind: z.literal('deliverable'),
    mxRecords: z.array(dnsName).min(1).max(MAX_SHARED_MX),
    hosts: z
      .array(
        z.strictObject({
          exchange: dnsName,
          priority: z.number().int().min(0).max(65_535),
          addresses: z
            .array(z.string().refine((ip) => isIP(ip) !== 0, 'must be an IP address'))
            .min(1)
            .max(64),
        }),
      )
      .min(1)
      .max(10),
    implicitMx: z.boolean(),
  }),
  z.strictObject({
    kind: z.literal('undeliverable'),
    reason: z.enum(['domain_not_found', 'null_mx', 'no_mx_records']),
    mxRecords: z.array(dnsName).max(MAX_SHARED_MX),
    message: z.string().max(2_000),
  }),
]);

/** One shared fact: the domain in the ASCII, lower-case form addresses are parsed to, and its time to live. */
export const sharedDomainFact = z.tuple([
  z
    .string()
    .max(253)
    .regex(/^[a-z0-9-]+(\.[a-z0-9-]+)+$/),
  domainFacts,
  z
    .number()
    .int()
    .min(1)
    .max(7 * 24 * 3_600_000),
]);

/** A domain-facts broadcast's envelope; each fact is checked on its own (a bad one does not spoil the rest). */
export const domainFactsBroadcast = z.strictObject({
  from: z.string().max(100),
  facts: z.array(z.unknown()).max(10_000),
});
