export interface Look {
  label: string;
  /** A text glyph beside the word, hidden from screen readers (which read the word). */
  glyph: string;
  tone: 'good' | 'bad' | 'unsure' | 'warn';
}

/** A state as a badge: its word and a glyph as well as a colour and border style. */
export function LookBadge({ look }: { look: Look }) {
  return (
    <span className={`badge badge--${look.tone}`}>
      <span className="badge__glyph" aria-hidden="true">
        {look.glyph}
      </span>
      {look.label}
    </span>
  );
}
