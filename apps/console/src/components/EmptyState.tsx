import type { ReactNode } from 'react';

interface Props {
  title: string;
  children?: ReactNode;
  /** The next step: a link or a button. */
  action?: ReactNode;
}

/** What a page shows when there is nothing yet: what this place is for, and the first step. */
export function EmptyState({ title, children, action }: Props) {
  return (
    <section className="empty" aria-label={title}>
      <p className="empty__title">{title}</p>
      {children ? <div className="empty__body">{children}</div> : null}
      {action ? <div className="empty__action">{action}</div> : null}
    </section>
  );
}
