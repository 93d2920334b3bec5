import { DomainError } from '@emailverify/contracts';

/** Why a file was refused, for logs and metrics; the message is what the customer reads. */
export type FileRejectionReason =
  | 'not_text'
  | 'not_xlsx'
  | 'line_too_long'
  | 'broken_quotes'
  | 'too_many_columns'
  | 'too_many_rows'
  | 'zip_bomb'
  | 'no_address'
  | 'email_column_missing';

/**
 * A customer's file that cannot be read. Code INVALID_REQUEST (400), or PAYLOAD_TOO_LARGE (413) when it holds
 * more rows than allowed; the message says why in words a customer understands.
 */
export class FileRejected extends DomainError {
  constructor(
    readonly reason: FileRejectionReason,
    message: string,
    details?: Record<string, unknown>,
  ) {
    super(reason === 'too_many_rows' ? 'PAYLOAD_TOO_LARGE' : 'INVALID_REQUEST', message, {
      reason,
      ...details,
    });
    this.name = 'FileRejected';
  }
}

/** 1048576 -> "1 MiB"; 1536 -> "1.5 KiB"; sizes in customer messages read better than byte counts. */
export function formatSize(bytes: number): string {
  const units = ['bytes', 'KiB', 'MiB', 'GiB'];
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit += 1;
  }
  const rounded = Math.round(value * 10) / 10;
  return `${rounded.toLocaleString('en-US')} ${units[unit]}`;
}
