import { posix } from 'node:path';
import {
  type Relationship,
  type XmlElement,
  type XmlHandler,
  attribute,
  relationshipOf,
} from '@emailverify/spreadsheet';
import type { XlsxArchive } from './archive';
import { notXlsx } from './rejections';
import { parseXmlText } from './xml';

/** Relationship and workbook parts are small; a huge one is not a real workbook. */
const MAX_SMALL_PART_BYTES = 16 * 1024 * 1024;
const DEFAULT_WORKBOOK = 'xl/workbook.xml';

export interface WorkbookParts {
  /** Part name of the first worksheet, in tab order. */
  sheet: string;
  sheetName: string;
  sharedStrings?: string;
}

/** Finds the first worksheet and the shared-strings table by following the package relationships. */
export async function locateParts(archive: XlsxArchive): Promise<WorkbookParts> {
  const workbook = await findWorkbook(archive);
  if (!archive.has(workbook)) throw notXlsx('it holds no workbook');

  const sheets: { name: string; relationshipId: string }[] = [];
  await parseXmlText(
    await archive.text(workbook, MAX_SMALL_PART_BYTES),
    collector((element) => {
      if (element.name !== 'sheet') return;
      sheets.push({ name: attribute(element, 'name') ?? '', relationshipId: attribute(element, 'id') ?? '' });
    }),
    workbook,
  );

  const relsPart = posix.join(posix.dirname(workbook), '_rels', `${posix.basename(workbook)}.rels`);
  const relationships = archive.has(relsPart) ? await readRelationships(archive, relsPart) : [];
  const byId = new Map(relationships.map((relationship) => [relationship.id, relationship]));
  const resolve = (target: string): string =>
    target.startsWith('/') ? target.slice(1) : posix.normalize(posix.join(posix.dirname(workbook), target));

  // Chart sheets can come first in tab order; the first sheet with cells is the one customers mean.
  for (const sheet of sheets) {
    const relationship = byId.get(sheet.relationshipId);
    if (!relationship || !relationship.type.endsWith('/worksheet')) continue;
    const sharedStrings = relationships.find((candidate) => candidate.type.endsWith('/sharedStrings'));
    const sharedPart = sharedStrings ? resolve(sharedStrings.target) : undefined;
    return {
      sheet: resolve(relationship.target),
      sheetName: sheet.name,
      sharedStrings: sharedPart && archive.has(sharedPart) ? sharedPart : undefined,
    };
  }
  throw notXlsx('it holds no worksheet');
}

async function findWorkbook(archive: XlsxArchive): Promise<string> {
  if (!archive.has('_rels/.rels')) return DEFAULT_WORKBOOK;
  const relationships = await readRelationships(archive, '_rels/.rels');
  const office = relationships.find((relationship) => relationship.type.endsWith('/officeDocument'));
  return office ? office.target.replace(/^\/+/, '') : DEFAULT_WORKBOOK;
}

async function readRelationships(archive: XlsxArchive, part: string): Promise<Relationship[]> {
  const relationships: Relationship[] = [];
  await parseXmlText(
    await archive.text(part, MAX_SMALL_PART_BYTES),
    collector((element) => {
      const relationship = relationshipOf(element);
      if (relationship) relationships.push(relationship);
    }),
    part,
  );
  return relationships;
}

function collector(onOpen: (element: XmlElement) => void): XmlHandler {
  return { open: onOpen, close: () => undefined, text: () => undefined };
}
