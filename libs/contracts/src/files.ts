/** The states a job ends with a result file in. */
const FINISHED = ['completed', 'completed_with_warning'] as const;
/** The states nothing moves a job out of. */
const TERMINAL = [...FINISHED, 'failed', 'cancelled'] as const;

/** File job states. */
export const JOB_STATES = [
  'preparing',
  'pending',
  'running',
  'processing',
  'merging',
  'paused',
  ...TERMINAL,
] as const;
export type JobState = (typeof JOB_STATES)[number];

export const TERMINAL_JOB_STATES: readonly JobState[] = TERMINAL;
export const FINISHED_JOB_STATES: readonly JobState[] = FINISHED;

export function isTerminalJobState(state: JobState): boolean {
  return TERMINAL_JOB_STATES.includes(state);
}

/**
 * The webhook event a job emits on reaching a state: `completed` and `completed_with_warning` emit
 * `file.completed`, `failed` emits `file.failed`; every other state (`cancelled` included) emits nothing.
 */
export function eventOfState(state: JobState): 'file.completed' | 'file.failed' | undefined {
  switch (state) {
    case 'completed':
    case 'completed_with_warning':
      return 'file.completed';
    case 'failed':
      return 'file.failed';
    default:
      return undefined;
  }
}
