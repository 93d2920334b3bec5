import { type ReactNode, type RefObject, useEffect, useId, useRef } from 'react';
import { ErrorMessage } from '../../components/ErrorMessage';

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
  /** The action is under way: both buttons wait. */
  busy?: boolean;
  busyLabel?: string;
  /** The action's failure, in plain words inside the dialog. */
  error?: unknown;
  errorContext?: string;
  /**
   * Where focus goes when the dialog closes (set it once the action is done, when its opener goes away with
   * what it acted on); otherwise the browser gives focus back to the opener.
   */
  returnFocusTo?: RefObject<HTMLElement | null>;
}

/** A confirmation as a native modal dialog: labelled by its heading, focus on the safe choice, Escape cancels. */
export function ConfirmDialog(props: Props) {
  const { open, title, children, confirmLabel, onConfirm, onCancel, danger, busy, error, returnFocusTo } =
    props;
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
