import { ErrorMessage } from './ErrorMessage';

interface Props {
  /** The request the form sends (a TanStack mutation): the button waits while it is under way. */
  request: { isPending: boolean; isError: boolean; error: unknown };
  /** The button's words: "Create key". */
  label: string;
  /** What the request does, on the button while under way and heading its failure: "Creating the key". */
  doing: string;
}

/** A form's submit button, and the failure of its request told under it. */
export function FormSubmit({ request, label, doing }: Props) {
  return (
    <>
      <div className="actions">
        <button type="submit" className="button button--primary" disabled={request.isPending}>
          {request.isPending ? `${doing}…` : label}
        </button>
      </div>
      {request.isError ? <ErrorMessage error={request.error} context={doing} /> : null}
    </>
  );
}
