// Webhooks and their deliveries in words: the last outcome of a webhook, a delivery's state, an attempt, and the
// circuit breaker that pauses deliveries to a receiver that keeps failing.
import type { Schemas } from '@emailverify/client';
import { formatDateTime } from '../../format/numbers';
import type { Look } from '../../components/LookBadge';

export type Webhook = Schemas['Webhook'];
export type Delivery = Schemas['Delivery'];
export type DeliveryAttempt = Schemas['DeliveryAttempt'];
export type WebhookEvent = Schemas['WebhookEvent'];

/**
 * The events a webhook can ask for, in the order the form offers them: the form's label, the name beside it, and
 * the few words the card and the delivery log show.
 */
export const EVENTS: readonly { event: WebhookEvent; label: string; hint: string; short: string }[] = [
  {
    event: 'file.completed',
    label: 'A list finished verifying',
    hint: 'file.completed',
    short: 'List finished',
  },
  { event: 'file.failed', label: 'A list could not be verified', hint: 'file.failed', short: 'List failed' },
];

/** An event in a few words; one this console does not know yet, by its name. */
export function eventWords(event: string): string {
  return EVENTS.find((known) => known.event === event)?.short ?? event;
}

export function eventsWords(events: readonly string[]): string {
  return events.map(eventWords).join(', ');
}

export function activeLook(active: boolean): Look {
  return active
    ? { label: 'Enabled', glyph: '●', tone: 'good' }
    : { label: 'Disabled', glyph: '‖', tone: 'unsure' };
}

/** The latest final outcome of a webhook's deliveries (the list's last_delivery_status). */
export function lastDeliveryLook(status: Webhook['last_delivery_status']): Look {
  switch (status) {
    case 'success':
      return { label: 'Delivered', glyph: '✓', tone: 'good' };
    case 'failed':
      return { label: 'Failed', glyph: '✕', tone: 'bad' };
    default:
      return { label: 'No delivery yet', glyph: '–', tone: 'unsure' };
  }
}

/**
 * A delivery of the log: delivered, failed for good, being retried after a failed attempt, sent again on request
 * (its last attempt had landed), or waiting for its first attempt.
 */
export function deliveryLook(delivery: Pick<Delivery, 'status' | 'attempts'>): Look {
  switch (delivery.status) {
    case 'success':
      return { label: 'Delivered', glyph: '✓', tone: 'good' };
    case 'failed':
      return { label: 'Failed', glyph: '✕', tone: 'bad' };
    default: {
      const last = delivery.attempts[delivery.attempts.length - 1];
      if (!last) return { label: 'Waiting', glyph: '…', tone: 'unsure' };
      return landed(last)
        ? { label: 'Sending again', glyph: '↻', tone: 'unsure' }
        : { label: 'Retrying', glyph: '↻', tone: 'warn' };
    }
  }
}

function landed(attempt: DeliveryAttempt): boolean {
  return attempt.http_status !== null && attempt.http_status >= 200 && attempt.http_status < 300;
}

/** One attempt: "HTTP 200 in 61 ms", "HTTP 500 in 84 ms: upstream unavailable", "No reply: connect ECONNREFUSED". */
export function attemptWords(attempt: DeliveryAttempt): string {
  if (attempt.http_status === null) {
    return `No reply${attempt.error ? `: ${attempt.error}` : ''}`;
  }
  const head = `HTTP ${attempt.http_status} in ${Math.round(attempt.duration_ms)} ms`;
  const said = attempt.error && attempt.error !== `HTTP ${attempt.http_status}` ? attempt.error : undefined;
  const body = attempt.http_status >= 300 && attempt.response_body ? attempt.response_body.trim() : undefined;
  const more = [said, body].filter((part): part is string => Boolean(part));
  return more.length > 0 ? `${head}: ${clip(more.join(' — '), 160)}` : head;
}

function clip(text: string, max: number): string {
  const line = text.replace(/\s+/g, ' ');
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}

/** What the log says of a delivery besides its state: its attempts and when the next one is due. */
export function deliveryProgressWords(
  delivery: Pick<Delivery, 'status' | 'attempts' | 'next_attempt_at'>,
): string {
  const tries = delivery.attempts.length;
  const count = tries === 0 ? 'Not tried yet' : `${tries} attempt${tries === 1 ? '' : 's'}`;
  if (delivery.status === 'pending' && delivery.next_attempt_at) {
    return `${count}; next at ${formatDateTime(delivery.next_attempt_at)}`;
  }
  return count;
}

/** The webhook's circuit breaker, as the list and the delivery log report it (when the service reports it). */
export interface Breaker {
  state: 'closed' | 'open' | 'half_open';
  retry_at: string | null;
  consecutive_failures: number;
}

/** The breaker of a reply, if it carries one (older services do not). */
export function breakerOf(reply: unknown): Breaker | undefined {
  if (typeof reply !== 'object' || reply === null) return undefined;
  const breaker = (reply as { breaker?: unknown }).breaker;
  if (typeof breaker !== 'object' || breaker === null) return undefined;
  const { state, retry_at: retryAt, consecutive_failures: failures } = breaker as Record<string, unknown>;
  if (state !== 'closed' && state !== 'open' && state !== 'half_open') return undefined;
  return {
    state,
    retry_at: typeof retryAt === 'string' ? retryAt : null,
    consecutive_failures: typeof failures === 'number' ? failures : 0,
  };
}

/** "Paused until 29 Nov 2026, 10:32 …" while the breaker is open or probing; undefined when deliveries flow. */
export function breakerWords(breaker: Breaker | undefined): string | undefined {
  if (!breaker || breaker.state === 'closed') return undefined;
  const failures =
    breaker.consecutive_failures > 0
      ? ` after ${breaker.consecutive_failures} failed attempt${breaker.consecutive_failures === 1 ? '' : 's'} in a row`
      : '';
  if (breaker.state === 'half_open') {
    return `Paused${failures}: one delivery is being tried now to see whether the receiver is back; the others follow if it lands.`;
  }
  const until = breaker.retry_at ? ` until ${formatDateTime(breaker.retry_at)}` : '';
  return `Paused${until}${failures}. Deliveries wait without using up their attempts; then one is tried, and the others follow if it lands.`;
}

/** The signing secret's rotation, in words. */
export function secretWords(
  webhook: Pick<Webhook, 'secret_rotated_at' | 'previous_secret_expires_at'>,
  now = Date.now(),
): string {
  if (!webhook.secret_rotated_at) return 'Never rotated';
  const rotated = `Rotated ${formatDateTime(webhook.secret_rotated_at)}`;
  const until = webhook.previous_secret_expires_at;
  if (until && Date.parse(until) > now) {
    return `${rotated}; the previous secret also signs until ${formatDateTime(until)}`;
  }
  return rotated;
}

/** A client-side look at the URL before the service's own checks: an https address, in words. */
export function webhookUrlProblem(url: string): string | undefined {
  const text = url.trim();
  if (text === '') return 'Enter the address that should receive the notifications.';
  let parsed: URL;
  try {
    parsed = new URL(text);
  } catch {
    return 'That is not a web address: it should look like https://example.com/hooks/emailverify.';
  }
  if (parsed.protocol !== 'https:')
    return 'The address must start with https:// (deliveries are sent encrypted).';
  if (parsed.username || parsed.password) return 'Leave the user name and password out of the address.';
  return undefined;
}
