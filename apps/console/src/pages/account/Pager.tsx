interface Props {
  /** The navigation's name: "Ledger pages". */
  label: string;
  /** 1 on the first page. */
  page: number;
  hasOlder: boolean;
  onNewer: () => void;
  onOlder: () => void;
  /** "entries", "deliveries". */
  things: string;
  /** A page is loading: the buttons wait. */
  busy?: boolean;
}

/**
 * Newer and older pages of a list newest first. A button with nowhere to go is marked aria-disabled rather
 * than disabled, so it keeps the keyboard focus of the person who just reached the last page.
 */
export function Pager({ label, page, hasOlder, onNewer, onOlder, things, busy }: Props) {
  if (page === 1 && !hasOlder) return null;
  const newerOff = page === 1 || Boolean(busy);
  const olderOff = !hasOlder || Boolean(busy);
  return (
    <nav className="pager" aria-label={label}>
      <button
        type="button"
        className="button"
        aria-disabled={newerOff}
        onClick={() => {
          if (!newerOff) onNewer();
        }}
      >
        <span aria-hidden="true">←</span> Newer {things}
      </button>
      <p className="pager__where" role="status" aria-live="polite">
        Page {page}
      </p>
      <button
        type="button"
        className="button"
        aria-disabled={olderOff}
        onClick={() => {
          if (!olderOff) onOlder();
        }}
      >
        Older {things} <span aria-hidden="true">→</span>
      </button>
    </nav>
  );
}
