import { type JobState, jobStatusSubject, type JobStatusBroadcast } from '@emailverify/contracts';
import type { MessageBus } from '@emailverify/messaging';
import type { JobRow } from './jobs.repository';

const ACTIVE: readonly JobState[] = ['running', 'processing'];

/** Being verified: running or processing. */
export function isActive(status: JobState): boolean {
  return ACTIVE.includes(status);
}

/** Tells whoever waits on the job (long polls) that its state or progress changed. */
export function broadcastStatus(bus: Pick<MessageBus, 'publish'>, job: JobRow): void {
  bus.publish(jobStatusSubject(job.id), {
    jobId: job.id,
    status: job.status,
    processedEmails: job.processed_emails,
  } satisfies JobStatusBroadcast);
}
