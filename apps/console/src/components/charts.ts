// Chart.js, tree-shaken: only the controllers, elements and scales the console draws are registered. Import
// this module from a page (a lazy chunk), never from the shell, so chart.js stays out of the first load.
import {
  ArcElement,
  BarController,
  BarElement,
  CategoryScale,
  Chart,
  DoughnutController,
  Legend,
  LinearScale,
  Tooltip,
} from 'chart.js';
import type { VerificationStatus } from '@emailverify/contracts';
import { useSyncExternalStore } from 'react';

Chart.register(
  BarController,
  BarElement,
  CategoryScale,
  LinearScale,
  DoughnutController,
  ArcElement,
  Tooltip,
  Legend,
);

/** A colour of the current scheme, from the custom properties of styles/base.css. */
export function themeColor(name: string): string {
  return getComputedStyle(document.documentElement).getPropertyValue(name).trim() || '#777777';
}

/** Each verdict's colour in charts (--status-<status> in styles/base.css); charts also label every part. */
export function statusColor(status: VerificationStatus): string {
  return themeColor(`--status-${status}`);
}

/** Axis and label colours of the current scheme. */
export function chartTheme() {
  return { text: themeColor('--fg'), grid: themeColor('--border') };
}

const DARK = '(prefers-color-scheme: dark)';

function subscribeScheme(listener: () => void): () => void {
  const query = window.matchMedia(DARK);
  query.addEventListener('change', listener);
  return () => query.removeEventListener('change', listener);
}

/**
 * The colour scheme in use, re-rendering when the system's changes: charts read their colours when drawn, so
 * a chart keyed by it is drawn again in the new scheme's colours.
 */
export function useColorScheme(): 'light' | 'dark' {
  return useSyncExternalStore(subscribeScheme, () => (window.matchMedia(DARK).matches ? 'dark' : 'light'));
}
