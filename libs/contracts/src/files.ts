/** File job states. */
export const JOB_STATES = [
  'preparing',
  'pending',
  'running',
  'processing',
  'merging',
  'paused',
  'completed',
  'completed_with_warning',
  'failed',
  'cancelled',
] as const;
export type JobState = (typeof JOB_STATES)[number];

export const TERMINAL_JOB_STATES: readonly JobState[] = [
  'completed',
  'completed_with_warning',
  'failed',
  'cancelled',
];
export const FINISHED_JOB_STATES: readonly JobState[] = ['completed', 'completed_with_warning'];

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
