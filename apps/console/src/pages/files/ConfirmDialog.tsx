import { useEffect, useId, useRef, type ReactNode } from 'react';

interface Props {
  /** Shown while true. */
  open: boolean;
  title: string;
  children: ReactNode;
  /** The button that goes ahead: "Cancel the job". */
  confirmLabel: string;
  /** The button that changes nothing: "Keep the job". */
  dismissLabel: string;
  onConfirm: () => void;
  /** Closed without going ahead (the dismiss button or Escape). */
  onDismiss: () => void;
}

/**
 * A confirmation before something that cannot be undone. A native modal <dialog>: the rest of the page is inert
 * while it is open (focus stays inside), Escape closes it, and focus returns to the button that opened it. The
 * dismiss button takes focus first, so Enter by mistake changes nothing.
 */
export function ConfirmDialog({
  open,
  title,
  children,
  confirmLabel,
  dismissLabel,
  onConfirm,
  onDismiss,
}: Props) {
  const ref = useRef<HTMLDialogElement>(null);
  const titleId = useId();
  const bodyId = useId();

  useEffect(() => {
    const dialog = ref.current;
    if (!dialog) return;
    if (open && !dialog.open) dialog.showModal();
    if (!open && dialog.open) dialog.close();
  }, [open]);

  return (
    <dialog
      ref={ref}
      className="files-dialog"
      aria-labelledby={titleId}
      aria-describedby={bodyId}
      onClose={() => {
        if (open) onDismiss();
      }}
    >
      <h2 id={titleId} className="files-dialog__title">
        {title}
      </h2>
      <div id={bodyId}>{children}</div>
      <div className="actions">
        <button type="button" className="button" autoFocus onClick={onDismiss}>
          {dismissLabel}
        </button>
        <button type="button" className="button files-button--danger" onClick={onConfirm}>
          {confirmLabel}
        </button>
      </div>
    </dialog>
  );
}
