import { FileRejected, formatSize } from '../errors';

export function notXlsx(why?: string): FileRejected {
  return new FileRejected(
    'not_xlsx',
    why ? `The file is not a valid XLSX file: ${why}` : 'The file is not a valid XLSX file',
  );
}

export function tooMuchUnzipped(limit: number): FileRejected {
  return new FileRejected(
    'zip_bomb',
    `The XLSX file unpacks to more than ${formatSize(limit)}; split it into smaller files or upload it as CSV`,
    { limit },
  );
}

export function absurdRatio(part: string, ratio: number): FileRejected {
  return new FileRejected(
    'zip_bomb',
    `The XLSX file looks like a zip bomb: its part ${part} would unpack to ${Math.round(ratio)} times its packed size`,
    { part },
  );
}
