import { asProblem } from '../api/problem';
import { errorWords } from '../format/error-words';

interface Props {
  /** What failed: an ApiProblem, or anything thrown (told as a network failure). */
  error: unknown;
  /** What was being done, for the heading: "Loading the balance". */
  context?: string;
  /** Offered as a "Try again" button when the words suggest retrying. */
  onRetry?: () => void;
}

/** An error in plain words from the error catalogue: never a raw reply. Announced to screen readers. */
export function ErrorMessage({ error, context, onRetry }: Props) {
  const words = errorWords(asProblem(error));
  return (
    <div className="notice notice--error" role="alert">
      <p className="notice__title">
        <span className="notice__glyph" aria-hidden="true">
          ✕
        </span>
        {context ? `${context}: ` : ''}
        {words.title}
      </p>
      <p>{words.detail}</p>
      {onRetry && words.action !== 'sign-in' ? (
        <button type="button" className="button" onClick={onRetry}>
          Try again
        </button>
      ) : null}
    </div>
  );
}
