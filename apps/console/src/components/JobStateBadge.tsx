import { jobStateLook } from '../format/job-state';
import { LookBadge } from './LookBadge';

/** A file job's state as a badge: its word and a glyph as well as a colour. */
export function JobStateBadge({ state }: { state: string }) {
  return <LookBadge look={jobStateLook(state)} />;
}
