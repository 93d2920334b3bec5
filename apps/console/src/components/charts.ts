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
