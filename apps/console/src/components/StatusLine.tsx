import type { ReactNode } from 'react';

/** A line that announces what an action did ("The key … was revoked"), politely; empty until then. */
export function StatusLine({ children }: { children: ReactNode }) {
  return (
    <p className="hint status-line" role="status" aria-live="polite">
      {children}
    </p>
  );
}
