import { type XmlElement, attribute } from './xml';

/** A relationship of an OPC package part (`_rels/*.rels`): how the workbook finds its sheets and strings. */
export interface Relationship {
  id: string;
  type: string;
  target: string;
}

/** The relationship an element of a relationships part states; none for other elements or external targets. */
export function relationshipOf(element: XmlElement): Relationship | undefined {
  if (element.name !== 'Relationship' || attribute(element, 'TargetMode') === 'External') return undefined;
  return {
    id: attribute(element, 'Id') ?? '',
    type: attribute(element, 'Type') ?? '',
    target: attribute(element, 'Target') ?? '',
  };
}
