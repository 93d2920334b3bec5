import {
  FILE_JOB_CURSOR_MAX_LENGTH,
  FILE_JOB_LIST_MAX_LIMIT,
  JOB_STATES,
  KEY_MODES,
} from '@emailverify/contracts';
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
  results: parseWith(ref.extend({ partial: z.boolean().optional() })),
  list: parseWith(
    z.strictObject({
      accountId,
      statuses: z.array(z.enum(JOB_STATES)).min(1).max(JOB_STATES.length).optional(),
      limit: z.number().int().min(1).max(FILE_JOB_LIST_MAX_LIMIT),
      // Its contents are checked where it is read (decodeCursor), which names it in the refusal.
      cursor: z.string().max(FILE_JOB_CURSOR_MAX_LENGTH).optional(),
      mode: z.enum(KEY_MODES).optional(),
    }),
  ),
  locate: parseWith(z.strictObject({ jobId: z.string().min(1).max(100) })),
};
