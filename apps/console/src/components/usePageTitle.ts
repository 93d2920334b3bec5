import { useEffect } from 'react';

/** The tab's title names the page: "Verify · Email verification console". */
export function usePageTitle(title: string): void {
  useEffect(() => {
    document.title = `${title} · E-mail verification console`;
  }, [title]);
}
