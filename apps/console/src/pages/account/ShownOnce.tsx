import { type ReactNode, useEffect, useId, useRef, useState } from 'react';
import { type CopyOutcome, copyOutcomeWords, copySecret } from './copy';

interface Props {
  /** The heading: "Signing secret of the new webhook". */
  title: string;
  /** The field's label: "Signing secret". */
  label: string;
  secret: string;
  /** What it is for, under the warning. */
  children?: ReactNode;
  /** The person has stored it: the secret is forgotten by the page. */
  onDone: () => void;
  /** The heading's level where it stands: 3 under a section's h2 (the default), 4 inside a card's h3. */
  level?: 3 | 4;
}

/**
 * A secret the service shows once (an API key, a webhook's signing secret): in a read-only field with a copy
 * button, and a warning that it will not be shown again. Focus moves to the field, its text selected.
 */
export function ShownOnce({ title, label, secret, children, onDone, level = 3 }: Props) {
  const Heading = level === 4 ? 'h4' : 'h3';
  const field = useRef<HTMLInputElement>(null);
  const [outcome, setOutcome] = useState<CopyOutcome>();
  const headingId = useId();
  const fieldId = useId();
  const warningId = useId();

  useEffect(() => {
    // After the confirming dialog (if any) has closed and given focus back to its opener.
    const timer = window.setTimeout(() => {
      field.current?.focus();
      field.current?.select();
    }, 0);
    return () => window.clearTimeout(timer);
  }, [secret]);

  async function copy(): Promise<void> {
    const clipboard = typeof navigator !== 'undefined' ? navigator.clipboard : undefined;
    setOutcome(
      await copySecret(secret, {
        writeText: clipboard ? (text) => clipboard.writeText(text) : undefined,
        select: () => {
          field.current?.focus();
          field.current?.select();
        },
        copySelection: () => document.execCommand('copy'),
      }),
    );
  }

  return (
    <section className="once" aria-labelledby={headingId}>
      <Heading id={headingId} className="once__title">
        {title}
      </Heading>
      <p id={warningId} className="notice notice--warn once__warning">
        <span className="notice__glyph" aria-hidden="true">
          !
        </span>
        Copy it now and keep it somewhere safe: it will not be shown again.
      </p>
      {children}
      <label htmlFor={fieldId}>{label}</label>
      <div className="once__row">
        <input
          ref={field}
          id={fieldId}
          className="input input--mono once__field"
          type="text"
          readOnly
          value={secret}
          spellCheck={false}
          autoComplete="off"
          aria-describedby={warningId}
          onFocus={(event) => event.currentTarget.select()}
        />
        <button type="button" className="button button--primary" onClick={() => void copy()}>
          Copy
        </button>
      </div>
      <p className="hint once__outcome" role="status" aria-live="polite">
        {outcome ? copyOutcomeWords(outcome) : ''}
      </p>
      <button type="button" className="button" onClick={onDone}>
        I have saved it
      </button>
    </section>
  );
}
