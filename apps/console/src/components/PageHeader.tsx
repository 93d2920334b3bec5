import type { ReactNode } from 'react';
import { usePageTitle } from './usePageTitle';

/** A page's one h1 (and the tab's title), with an optional line under it. */
export function PageHeader({ title, children }: { title: string; children?: ReactNode }) {
  usePageTitle(title);
  return (
    <header className="page-header">
      <h1>{title}</h1>
      {children ? <p className="page-header__lead">{children}</p> : null}
    </header>
  );
}
