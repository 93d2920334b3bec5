import { Component, type ErrorInfo, type ReactNode } from 'react';

interface Props {
  children: ReactNode;
}

interface State {
  failed: boolean;
}

/** A fault in a page's code shows a message and a way out instead of a blank page. */
export class ErrorBoundary extends Component<Props, State> {
  override state: State = { failed: false };

  static getDerivedStateFromError(): State {
    return { failed: true };
  }

  override componentDidCatch(_error: unknown, _info: ErrorInfo): void {
    // Nothing is sent anywhere: the page stays on its own origin and logs nothing that could hold a key.
  }

  override render() {
    if (!this.state.failed) return this.props.children;
    return (
      <div className="notice notice--error" role="alert">
        <p className="notice__title">
          <span className="notice__glyph" aria-hidden="true">
            ✕
          </span>
          This page ran into a problem
        </p>
        <p>Reload the page to try again. Your work on the service itself is not affected.</p>
        <button type="button" className="button" onClick={() => window.location.reload()}>
          Reload
        </button>
      </div>
    );
  }
}
