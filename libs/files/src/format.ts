export type FileFormat = 'csv' | 'txt' | 'xlsx';

const BY_EXTENSION: Record<string, FileFormat> = { csv: 'csv', txt: 'txt', xlsx: 'xlsx' };

/** The format of an upload by its extension, case-insensitive; undefined for anything else. */
export function formatFromName(fileName: string): FileFormat | undefined {
  const dot = fileName.lastIndexOf('.');
  if (dot < 0) return undefined;
  return BY_EXTENSION[
    fileName
      .slice(dot + 1)
      .trim()
      .toLowerCase()
  ];
}

/** How the format is named to customers in messages. */
export function formatLabel(format: FileFormat): string {
  switch (format) {
    case 'csv':
      return 'CSV';
    case 'txt':
      return 'text';
    case 'xlsx':
      return 'XLSX';
  }
}
