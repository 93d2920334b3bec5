import { type ReactNode, type RefObject, useEffect, useId, useRef } from 'react';
import { ErrorMessage } from './ErrorMessage';
import './dialog.css';

interface Props {
  /** Open while true: a modal <dialog> (focus kept inside, Escape cancels). */
  open: boolean;
  title: string;
  children: ReactNode;
  /** The confirming button's words: "Delete webhook". */
  confirmLabel: string;
  /** Omit to offer only the cancel button (named `cancelLabel`). */
  onConfirm?: () => void;
  onCancel: () => void;
  cancelLabel?: string;
  /** A destructive action: the confirming button is marked so, and focus starts on Cancel. */
  danger?: boolean;
  /**
   * The mutation the dialog confirms, run while it stays open: both buttons wait while it is under way, its
   * failure is told inside the dialog, and cancelling forgets it.
   */
  action?: DialogAction;
  busyLabel?: string;
  /** What was being done, for the failure's heading: "Revoking the key". */
  errorContext?: string;
  /**
   * Where focus goes when the dialog closes after its action succeeded (when the opener goes away with what it
   * acted on); otherwise the browser gives focus back to the opener.
   */
  returnFocusTo?: RefObject<HTMLElement | null>;
}

/** The parts of a TanStack mutation the dialog follows. */
interface DialogAction {
  isPending: boolean;
  isSuccess: boolean;
  error: unknown;
  reset: () => void;
}

/** A confirmation as a native modal dialog: labelled by its heading, focus on the safe choice, Escape cancels. */
export function ConfirmDialog(props: Props) {
  const { open, title, children, confirmLabel, onConfirm, danger, action } = props;
  const busy = action?.isPending ?? false;
  const error = action?.error;
  const returnFocusTo = action?.isSuccess ? props.returnFocusTo : undefined;
  const onCancel = () => {
    action?.reset();
    props.onCancel();
  };
  const dialog = useRef<HTMLDialogElement>(null);
  const cancel = useRef<HTMLButtonElement>(null);
  const confirm = useRef<HTMLButtonElement>(null);
  const titleId = useId();
  const bodyId = useId();

  useEffect(() => {
    const element = dialog.current;
    if (!element) return;
    if (open && !element.open) {
      element.showModal();
      (danger || !onConfirm ? cancel.current : confirm.current)?.focus();
    } else if (!open && element.open) {
      element.close();
      returnFocusTo?.current?.focus();
    }
  }, [open, danger, onConfirm, returnFocusTo]);

  return (
    <dialog
      ref={dialog}
      className="dialog"
      aria-labelledby={titleId}
      aria-describedby={bodyId}
      onCancel={(event) => {
        // Escape: closed by the page's state, not behind its back (and not while the action runs).
        event.preventDefault();
        if (!busy) onCancel();
      }}
      onClose={() => {
        // Closed by the browser itself (a repeated Escape may not be refused): the page's state follows.
        if (open) onCancel();
      }}
    >
      <h2 id={titleId} className="dialog__title">
        {title}
      </h2>
      <div id={bodyId} className="dialog__body">
        {children}
      </div>
      {error ? <ErrorMessage error={error} context={props.errorContext} /> : null}
      <div className="actions dialog__actions">
        <button ref={cancel} type="button" className="button" onClick={onCancel} disabled={busy}>
          {props.cancelLabel ?? 'Cancel'}
        </button>
        {onConfirm ? (
          <button
            ref={confirm}
            type="button"
            className={danger ? 'button button--danger' : 'button button--primary'}
            onClick={onConfirm}
            disabled={busy}
          >
            {busy ? (props.busyLabel ?? 'Working…') : confirmLabel}
          </button>
        ) : null}
      </div>
    </dialog>
  );
}
