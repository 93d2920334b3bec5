/** How a state looks: a word, a glyph and a tone (colour and border style), so it reads without colour. */
export interface Look {
  label: string;
  /** A text glyph beside the word, hidden from screen readers (which read the word). */
  glyph: string;
  tone: 'good' | 'bad' | 'unsure' | 'warn';
}

/** A state as a badge: its word and a glyph as well as a colour and border style. */
export function LookBadge({ look, className, title }: { look: Look; className?: string; title?: string }) {
  return (
    <span className={`badge badge--${look.tone}${className ? ` ${className}` : ''}`} title={title}>
      <span className="badge__glyph" aria-hidden="true">
        {look.glyph}
      </span>
      {look.label}
    </span>
  );
}
