import { DomainError, WEBHOOK_EVENTS, type WebhookEvent } from '@emailverify/contracts';
import { classifyAddress, isIpLiteral } from '@emailverify/net-policy';

const MAX_URL_LENGTH = 2048;

function invalid(field: string, message: string): DomainError {
  return new DomainError('INVALID_REQUEST', `${field}: ${message}`, { field });
}

/**
 * A webhook target: an absolute https URL without user info, at most 2,048 characters. An IP-literal host in a
 * non-public range is refused here unless private networks are allowed; host names are checked when each
 * attempt resolves them. Returns the URL in its normalised form.
 */
export function validateTargetUrl(value: string, allowPrivateNetworks: boolean): string {
  if (value.length > MAX_URL_LENGTH) throw invalid('url', `must be at most ${MAX_URL_LENGTH} characters`);
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw invalid('url', 'must be an absolute https URL');
  }
  if (url.protocol !== 'https:') throw invalid('url', 'must be an https URL');
  if (url.username || url.password) throw invalid('url', 'must not contain a user name or password');
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (!host) throw invalid('url', 'must name a host');
  if (isIpLiteral(host) && !allowPrivateNetworks) {
    const range = classifyAddress(host);
    if (range !== 'public')
      throw invalid(
        'url',
        `${host} is a non-public address (${range}); webhooks are delivered only to public addresses`,
      );
  }
  return url.href;
}

/** A non-empty subset of the supported events, each once, in the order given. */
export function validateEvents(events: readonly string[]): WebhookEvent[] {
  if (events.length === 0)
    throw invalid('events', `at least one event is required (${WEBHOOK_EVENTS.join(', ')})`);
  for (const event of events) {
    if (!(WEBHOOK_EVENTS as readonly string[]).includes(event))
      throw invalid(
        'events',
        `unsupported event "${event.slice(0, 100)}"; supported: ${WEBHOOK_EVENTS.join(', ')}`,
      );
  }
  return [...new Set(events)] as WebhookEvent[];
}
