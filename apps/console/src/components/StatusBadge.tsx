import { STATUS_LOOK, isStatus } from '../format/status';

/** A verdict as a badge: its word, a glyph and a border shape as well as a colour. */
export function StatusBadge({ status }: { status: string }) {
  if (!isStatus(status)) return <span className="badge badge--unsure">{status}</span>;
  const look = STATUS_LOOK[status];
  return (
    <span className={`badge badge--${look.tone} badge--${status}`} title={look.meaning}>
      <span className="badge__glyph" aria-hidden="true">
        {look.glyph}
      </span>
      {look.label}
    </span>
  );
}
