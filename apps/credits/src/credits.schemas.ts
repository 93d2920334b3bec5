import {
  CLOSE_USED_MAX,
  KEY_MODES,
  KEY_SCOPES,
  LEDGER_PAGE,
  RESERVE_MANY_MAX,
  RESPONSE_STYLES,
  USAGE_RECORD_MAX,
  VERIFICATION_STATUSES,
} from '@emailverify/contracts';
import { accountIdField, parseWith, uuid } from '@emailverify/service-kit';
import { z } from 'zod';

const id = uuid();
const accountId = accountIdField();
const key = z.string().min(1).max(200);
const style = z.enum(RESPONSE_STYLES);
const credits = z.number().int().min(0).max(1_000_000_000);
const reservation = z.strictObject({
  accountId,
  idempotencyKey: key,
  amount: credits,
  holdSeconds: z
    .number()
    .int()
    .min(1)
    .max(7 * 24 * 3600)
    .optional(),
});
const mode = z.enum(KEY_MODES);
const instant = z.iso.datetime({ offset: true });
const closeList = z.array(z.strictObject({ accountId, idempotencyKey: key })).max(CLOSE_USED_MAX);

/** Payload validation on receipt: a malformed message is refused, never half-applied. */
export const CreditsPayloads = {
  authResolve: parseWith(z.strictObject({ keyHash: z.string().regex(/^[0-9a-f]{64}$/) })),
  balanceGet: parseWith(z.strictObject({ accountId, apiKeyId: id })),
  reserve: parseWith(reservation),
  reserveMany: parseWith(
    z.strictObject({
      reservations: z.array(reservation).min(1).max(RESERVE_MANY_MAX),
      close: closeList.optional(),
    }),
  ),
  settle: parseWith(z.strictObject({ accountId, idempotencyKey: key, used: credits })),
  closeUsed: parseWith(z.strictObject({ reservations: closeList.min(1) })),
  accountCreate: parseWith(
    z.strictObject({
      name: z.string().min(1).max(200),
      credits,
      style: style.optional(),
      plan: z.string().min(1).max(50).optional(),
    }),
  ),
  balanceAdd: parseWith(z.strictObject({ accountId, credits: credits.min(1) })),
  keyCreate: parseWith(
    z.strictObject({
      accountId,
      name: z.string().min(1).max(200).optional(),
      style: style.optional(),
      mode: mode.optional(),
      scope: z.enum(KEY_SCOPES).optional(),
      expiresAt: instant.optional(),
    }),
  ),
  keySetStyle: parseWith(z.strictObject({ apiKeyId: key, style })),
  keyRevoke: parseWith(z.strictObject({ apiKeyId: key })),
  keyList: parseWith(z.strictObject({ accountId, mode: mode.optional() })),
  accountKeyRevoke: parseWith(
    z.strictObject({ accountId, apiKeyId: id, callerApiKeyId: id, mode: mode.optional() }),
  ),
  ledgerList: parseWith(
    z.strictObject({
      accountId,
      limit: z.number().int().min(LEDGER_PAGE.min).max(LEDGER_PAGE.max),
      cursor: z.string().min(1).max(200).optional(),
      from: instant.optional(),
      to: instant.optional(),
    }),
  ),
  usageGet: parseWith(z.strictObject({ accountId, from: z.iso.date(), to: z.iso.date() })),
  usageRecord: parseWith(
    z.strictObject({
      key,
      entries: z
        .array(
          z.strictObject({
            accountId,
            mode,
            status: z.enum(VERIFICATION_STATUSES),
            count: z.number().int().min(1).max(1_000_000_000),
          }),
        )
        .min(1)
        .max(USAGE_RECORD_MAX),
    }),
  ),
};
