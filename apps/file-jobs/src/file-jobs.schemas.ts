import { KEY_MODES } from '@emailverify/contracts';
import { accountIdField, parseWith } from '@emailverify/service-kit';
import { z } from 'zod';

const accountId = accountIdField();
const ref = z.strictObject({
  accountId,
  jobId: z.string().min(1).max(100),
  mode: z.enum(KEY_MODES).optional(),
});

export const FileJobsPayloads = {
  create: parseWith(
    z.strictObject({
      accountId,
      uploadObject: z.string().min(1).max(300),
      fileName: z.string().min(1).max(500),
      fileSize: z.number().int().min(0),
      emailColumn: z.string().min(1).max(500).optional(),
      checkSmtp: z.boolean(),
      preserveOriginal: z.boolean(),
      enrich: z.boolean(),
      sandbox: z.boolean().optional(),
    }),
  ),
  ref: parseWith(ref),
  locate: parseWith(z.strictObject({ jobId: z.string().min(1).max(100) })),
};
