// A file job's state in words, with a glyph, so a list of jobs reads without colour.
import type { Schemas } from '@emailverify/client';

export type JobState = Schemas['JobState'];

export interface JobStateLook {
  label: string;
  glyph: string;
  tone: 'good' | 'bad' | 'unsure' | 'warn';
  /** The job will not change any more. */
  ended: boolean;
}

export const JOB_STATE_LOOK: Record<JobState, JobStateLook> = {
  preparing: { label: 'Preparing', glyph: '…', tone: 'unsure', ended: false },
  pending: { label: 'Queued', glyph: '…', tone: 'unsure', ended: false },
  running: { label: 'Verifying', glyph: '↻', tone: 'unsure', ended: false },
  processing: { label: 'Verifying', glyph: '↻', tone: 'unsure', ended: false },
  merging: { label: 'Writing results', glyph: '↻', tone: 'unsure', ended: false },
  paused: { label: 'Paused', glyph: '‖', tone: 'warn', ended: false },
  completed: { label: 'Completed', glyph: '✓', tone: 'good', ended: true },
  completed_with_warning: { label: 'Completed with warnings', glyph: '!', tone: 'warn', ended: true },
  failed: { label: 'Failed', glyph: '✕', tone: 'bad', ended: true },
  cancelled: { label: 'Cancelled', glyph: '✕', tone: 'bad', ended: true },
};

export function jobStateLook(state: string): JobStateLook {
  return Object.prototype.hasOwnProperty.call(JOB_STATE_LOOK, state)
    ? JOB_STATE_LOOK[state as JobState]
    : { label: state, glyph: '?', tone: 'unsure', ended: false };
}
