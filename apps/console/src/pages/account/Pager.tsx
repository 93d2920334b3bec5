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

/** Newer and older pages of a list newest first. */
export function Pager({ label, page, hasOlder, onNewer, onOlder, things, busy }: Props) {
  if (page === 1 && !hasOlder) return null;
  return (
    <nav className="pager" aria-label={label}>
      <button type="button" className="button" onClick={onNewer} disabled={page === 1 || busy}>
        <span aria-hidden="true">←</span> Newer {things}
      </button>
      <p className="pager__where">Page {page}</p>
      <button type="button" className="button" onClick={onOlder} disabled={!hasOlder || busy}>
        Older {things} <span aria-hidden="true">→</span>
      </button>
    </nav>
  );
}
