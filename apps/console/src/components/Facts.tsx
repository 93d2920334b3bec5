import type { ReactNode } from 'react';

/** A card's facts: terms and their values, laid out as two columns (one on narrow screens). */
export function Facts({ className, children }: { className?: string; children: ReactNode }) {
  return <dl className={className ? `facts ${className}` : 'facts'}>{children}</dl>;
}

/** One fact of a `Facts` list: its term and value. */
export function Fact({ term, mono, children }: { term: string; mono?: boolean; children: ReactNode }) {
  return (
    <>
      <dt>{term}</dt>
      <dd className={mono ? 'mono' : undefined}>{children}</dd>
    </>
  );
}
