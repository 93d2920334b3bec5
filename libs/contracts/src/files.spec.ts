import { describe, expect, it } from 'vitest';
import { eventOfState, JOB_STATES } from './files';

describe('eventOfState', () => {
  it('emits file.completed for both completed states, file.failed for failed, nothing otherwise', () => {
    expect(Object.fromEntries(JOB_STATES.map((state) => [state, eventOfState(state)]))).toEqual({
      preparing: undefined,
      pending: undefined,
      running: undefined,
      processing: undefined,
      merging: undefined,
      paused: undefined,
      completed: 'file.completed',
      completed_with_warning: 'file.completed',
      failed: 'file.failed',
      cancelled: undefined,
    });
  });
});
