import { useMutation } from '@tanstack/react-query';
import { useEffect, useRef, useState } from 'react';
import { ConfirmDialog } from '../../components/ConfirmDialog';
import { ErrorMessage } from '../../components/ErrorMessage';
import type { JobCard } from './job-card';
import { runJobAction, type JobAction } from './queries';

interface Props {
  jobId: string;
  fileName: string;
  card: JobCard;
  /** After the job was deleted (the job page leaves for the list). */
  onDeleted?: () => void;
}

const DONE: Record<JobAction, string> = {
  pause: 'Paused',
  resume: 'Resumed',
  cancel: 'Cancelled',
  delete: 'Deleted',
};

const DOING: Record<JobAction, string> = {
  pause: 'Pausing',
  resume: 'Resuming',
  cancel: 'Cancelling',
  delete: 'Deleting',
};

/** The actions asked about first: neither can be undone. */
const CONFIRMED = ['cancel', 'delete'] as const;
type Confirmed = (typeof CONFIRMED)[number];

/** What the confirmation of cancelling or deleting a job says: its heading, its two buttons, and the cost. */
function confirmation(what: Confirmed, fileName: string, card: JobCard) {
  switch (what) {
    case 'cancel':
      return {
        title: `Cancel verifying ${fileName}?`,
        confirmLabel: 'Cancel the job',
        cancelLabel: 'Keep it running',
        body:
          'Addresses already verified stay charged; the credits reserved for the rest are given back. A ' +
          'cancelled job cannot be resumed and its results cannot be downloaded.',
      };
    case 'delete':
      return {
        title: `Delete ${fileName}?`,
        confirmLabel: 'Delete the job',
        cancelLabel: 'Keep the job',
        body:
          'The uploaded file, its results and the job itself are erased at once and cannot be downloaded ' +
          'again.' +
          (card.canCancel
            ? ' The job is still running: it is cancelled first, and unused credits are given back.'
            : ''),
      };
  }
}

/**
 * Pause, resume, cancel and delete for one job, the last two after a confirmation. Each button's name ends with
 * the file's name for screen readers ("Pause leads.csv"), as several jobs are listed together.
 */
export function JobActions({ jobId, fileName, card, onDeleted }: Props) {
  const [confirming, setConfirming] = useState<Confirmed>();
  const [done, setDone] = useState<string | undefined>();
  const action = useMutation({
    mutationFn: (what: JobAction) => runJobAction(jobId, what),
    onSuccess: (_, what) => {
      setDone(`${DONE[what]}: ${fileName}.`);
      if (what === 'delete') onDeleted?.();
    },
  });
  const busy = action.isPending;
  const run = (what: JobAction) => {
    setConfirming(undefined);
    setDone(undefined);
    action.mutate(what);
  };
  const name = <span className="visually-hidden"> {fileName}</span>;
  const group = useRef<HTMLDivElement>(null);
  const lastFocused = useRef<HTMLElement | null>(null);
  useEffect(() => {
    // A button goes away with the state it acted on (Pause once paused, Cancel once cancelled) and takes the
    // focus with it: the focus moves to the first action left, not to the top of the page. While an action is
    // under way every button is disabled; the move waits for one that can take the focus.
    const gone = lastFocused.current;
    if (!gone || gone.isConnected || document.activeElement !== document.body) return;
    const next = group.current?.querySelector<HTMLButtonElement>('button:not(:disabled)');
    if (next) {
      lastFocused.current = null;
      next.focus();
    }
  });

  return (
    <>
      <div
        ref={group}
        className="actions files-actions"
        onFocus={(event) => (lastFocused.current = event.target)}
      >
        {card.canPause ? (
          <button type="button" className="button" disabled={busy} onClick={() => run('pause')}>
            Pause{name}
          </button>
        ) : null}
        {card.canResume ? (
          <button type="button" className="button" disabled={busy} onClick={() => run('resume')}>
            Resume{name}
          </button>
        ) : null}
        {card.canCancel ? (
          <button type="button" className="button" disabled={busy} onClick={() => setConfirming('cancel')}>
            Cancel{name}
          </button>
        ) : null}
        <button
          type="button"
          className="button button--quiet"
          disabled={busy}
          onClick={() => setConfirming('delete')}
        >
          Delete{name}
        </button>
      </div>
      <p className="visually-hidden" role="status">
        {done}
      </p>
      {action.isError ? (
        <ErrorMessage error={action.error} context={`${DOING[action.variables]} ${fileName}`} />
      ) : null}
      {CONFIRMED.map((what) => {
        const { body, ...words } = confirmation(what, fileName, card);
        return (
          <ConfirmDialog
            key={what}
            open={confirming === what}
            {...words}
            danger
            onConfirm={() => run(what)}
            onCancel={() => setConfirming(undefined)}
          >
            <p>{body}</p>
          </ConfirmDialog>
        );
      })}
    </>
  );
}
