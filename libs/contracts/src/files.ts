/** File job states (API_SPEC section 3). */
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
