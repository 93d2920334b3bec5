import { ErrorMessage } from './ErrorMessage';

interface Props {
  /** The request the form sends (a TanStack mutation): the button waits while it is under way. */
  request: { isPending: boolean; isError: boolean; error: unknown };
  /** The button's words: "Create key". */
  label: string;
  /** Its words while the request is under way: "Creating the key…". */
  busyLabel: string;
  /** What was being done, for the failure's heading: "Creating the key". */
  errorContext: string;
}

/** A form's submit button, and the failure of its request told under it. */
export function FormSubmit({ request, label, busyLabel, errorContext }: Props) {
  return (
    <>
      <div className="actions">
        <button type="submit" className="button button--primary" disabled={request.isPending}>
          {request.isPending ? busyLabel : label}
        </button>
      </div>
      {request.isError ? <ErrorMessage error={request.error} context={errorContext} /> : null}
    </>
  );
}
