import { accountIdField, parseWith } from '@emailverify/service-kit';
import { z } from 'zod';

const accountId = accountIdField();

/** Payload validation on receipt. Address syntax is the service's own check (INVALID_EMAIL), not the schema's. */
export const VerifierPayloads = {
  single: parseWith(
    z.strictObject({
      accountId,
      email: z.string().max(4096),
      checkSmtp: z.boolean(),
      forceRefresh: z.boolean(),
    }),
  ),
  bulk: parseWith(
    z.strictObject({ accountId, emails: z.array(z.string().max(4096)).max(10_000), checkSmtp: z.boolean() }),
  ),
  /** Domain syntax is the service's own check (INVALID_REQUEST naming `domain`), not the schema's. */
  domain: parseWith(z.strictObject({ accountId, domain: z.string().max(4096), checkSmtp: z.boolean() })),
};
