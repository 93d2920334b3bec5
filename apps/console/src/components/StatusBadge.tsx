import { STATUS_LOOK, isStatus } from '../format/status';
import { LookBadge } from './LookBadge';

/** A verdict as a badge: its word, a glyph and a border shape as well as a colour. */
export function StatusBadge({ status }: { status: string }) {
  if (!isStatus(status)) return <span className="badge badge--unsure">{status}</span>;
  const look = STATUS_LOOK[status];
  return <LookBadge look={look} className={`badge--${status}`} title={look.meaning} />;
}
