import type { ReactNode } from 'react';
import type { CursorPaging } from '../hooks/cursor-pages';
import './pager.css';

interface Props {
  /** The navigation's name: "Ledger pages". */
  label: string;
  /** "entries", "deliveries". */
  things: string;
  /** The pages seen so far (useCursorPages). */
  pages: CursorPaging;
  /** The shown page's reply's next_cursor: null or undefined on the last page. */
  next: string | null | undefined;
  /** A page is loading: the buttons wait. */
  busy?: boolean;
}

/**
 * Newer and older pages of a list newest first. A button with nowhere to go is marked aria-disabled rather
 * than disabled, so it keeps the keyboard focus of the person who just reached the last page.
 */
export function Pager({ label, things, pages, next, busy }: Props) {
  const { page } = pages;
  if (page === 1 && !next) return null;
  return (
    <nav className="pager" aria-label={label}>
      <PageButton off={page === 1 || Boolean(busy)} onClick={pages.newer}>
        <span aria-hidden="true">←</span> Newer {things}
      </PageButton>
      <p className="pager__where" role="status" aria-live="polite">
        Page {page}
      </p>
      <PageButton off={!next || Boolean(busy)} onClick={() => pages.older(next)}>
        Older {things} <span aria-hidden="true">→</span>
      </PageButton>
    </nav>
  );
}

function PageButton({ off, onClick, children }: { off: boolean; onClick: () => void; children: ReactNode }) {
  return (
    <button
      type="button"
      className="button"
      aria-disabled={off}
      onClick={() => {
        if (!off) onClick();
      }}
    >
      {children}
    </button>
  );
}
