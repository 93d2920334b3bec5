import type { ReactNode } from 'react';
import { TableWrap } from './TableWrap';

export interface Column {
  label: string;
  /** A column of numbers: right-aligned, tabular figures. */
  num?: boolean;
  /** Named for screen readers only (a column of buttons: "Actions"). */
  hidden?: boolean;
}

/** A column of numbers. */
export function numeric(label: string): Column {
  return { label, num: true };
}

/** A column named for screen readers only (a column of buttons: "Actions"). */
export function unseen(label: string): Column {
  return { label, hidden: true };
}

interface Props {
  /** The scrollable region's name (TableWrap). */
  label: string;
  /** The table's name: "Your API keys, oldest first". */
  caption: ReactNode;
  /** Shown above the table; otherwise for screen readers only. */
  captionVisible?: boolean;
  /** Each column's header: its words, or a Column for a column of numbers or a hidden name. */
  columns: readonly (string | Column)[];
  /** The body's rows, each with its row header (<th scope="row">). */
  children: ReactNode;
}

/** A table in its scrollable, focusable region, named by its caption, with a header cell per column. */
export function DataTable({ label, caption, captionVisible, columns, children }: Props) {
  return (
    <TableWrap label={label}>
      <table>
        <caption className={captionVisible ? undefined : 'visually-hidden'}>{caption}</caption>
        <thead>
          <tr>
            {columns.map((header) => {
              const column = typeof header === 'string' ? { label: header } : header;
              return (
                <th key={column.label} scope="col" className={column.num ? 'num' : undefined}>
                  {column.hidden ? <span className="visually-hidden">{column.label}</span> : column.label}
                </th>
              );
            })}
          </tr>
        </thead>
        <tbody>{children}</tbody>
      </table>
    </TableWrap>
  );
}
