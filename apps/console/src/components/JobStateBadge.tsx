import { jobStateLook } from '../format/job-state';

/** A file job's state as a badge: its word and a glyph as well as a colour. */
export function JobStateBadge({ state }: { state: string }) {
  const look = jobStateLook(state);
  return (
    <span className={`badge badge--${look.tone}`}>
      <span className="badge__glyph" aria-hidden="true">
        {look.glyph}
      </span>
      {look.label}
    </span>
  );
}
