// Paging through a cursor-paginated list (the ledger, a delivery log): the cursors of the pages seen so far, so
// "Newer" goes back without the API having to page backwards.
import { useCallback, useState } from 'react';

export interface CursorPages {
  /** The cursors of the pages from the first (undefined) to the one shown. */
  readonly stack: readonly (string | undefined)[];
}

export const FIRST_PAGE: CursorPages = { stack: [undefined] };

/** The cursor of the page shown: undefined on the first. */
export function currentCursor(pages: CursorPages): string | undefined {
  return pages.stack[pages.stack.length - 1];
}

/** 1 on the first page. */
export function pageNumber(pages: CursorPages): number {
  return pages.stack.length;
}

/** The next (older) page; unchanged when the reply said there is none. */
export function olderPage(pages: CursorPages, nextCursor: string | null | undefined): CursorPages {
  if (!nextCursor) return pages;
  return { stack: [...pages.stack, nextCursor] };
}

/** The page before (newer); the first page stays the first. */
export function newerPage(pages: CursorPages): CursorPages {
  if (pages.stack.length <= 1) return pages;
  return { stack: pages.stack.slice(0, -1) };
}

export function useCursorPages() {
  const [pages, setPages] = useState<CursorPages>(FIRST_PAGE);
  return {
    cursor: currentCursor(pages),
    page: pageNumber(pages),
    older: useCallback((next: string | null | undefined) => setPages((p) => olderPage(p, next)), []),
    newer: useCallback(() => setPages((p) => newerPage(p)), []),
    first: useCallback(() => setPages(FIRST_PAGE), []),
  };
}
