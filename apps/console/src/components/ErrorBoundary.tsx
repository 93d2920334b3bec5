import { Component, type ErrorInfo, type ReactNode } from 'react';

interface Props {
  children: ReactNode;
}

interface State {
  failed: boolean;
  /** The page's code could not be fetched (offline, or a newer console replaced it): reloading helps. */
  notLoaded: boolean;
}

/** A fault in a page's code shows a message and a way out instead of a blank page. */
export class ErrorBoundary extends Component<Props, State> {
  override state: State = { failed: false, notLoaded: false };

  static getDerivedStateFromError(error: unknown): State {
    const message = error instanceof Error ? error.message : '';
    return {
      failed: true,
      notLoaded: /dynamically imported module|Importing a module script failed/i.test(message),
    };
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
          {this.state.notLoaded ? 'This page could not be loaded' : 'This page ran into a problem'}
        </p>
        <p>
          {this.state.notLoaded
            ? 'Check your connection, then reload the page.'
            : 'Reload the page to try again. Your work on the service itself is not affected.'}
        </p>
        <button type="button" className="button" onClick={() => window.location.reload()}>
          Reload
        </button>
      </div>
    );
  }
}
