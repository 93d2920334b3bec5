import { describe, expect, it } from 'vitest';
import {
  attemptWords,
  breakerOf,
  breakerWords,
  deliveryLook,
  deliveryProgressWords,
  eventsWords,
  lastDeliveryLook,
  secretWords,
  webhookUrlProblem,
} from './delivery';

const attempt = (over: Partial<Parameters<typeof attemptWords>[0]> = {}) => ({
  at: '2026-11-22T10:02:13.100Z',
  http_status: 200,
  duration_ms: 61,
  error: null,
  response_body: null,
  ...over,
});

describe('delivery states in words', () => {
  it('tells a delivery delivered, failed, being retried or not yet tried', () => {
    expect(deliveryLook({ status: 'success', attempts: [attempt()] })).toMatchObject({
      label: 'Delivered',
      tone: 'good',
    });
    expect(deliveryLook({ status: 'failed', attempts: [attempt()] })).toMatchObject({
      label: 'Failed',
      tone: 'bad',
    });
    expect(deliveryLook({ status: 'pending', attempts: [attempt({ http_status: 500 })] }).label).toBe(
      'Retrying',
    );
    expect(deliveryLook({ status: 'pending', attempts: [] }).label).toBe('Waiting');
    // A redelivery asked for after a success: pending again, its last attempt had landed.
    expect(deliveryLook({ status: 'pending', attempts: [attempt()] }).label).toBe('Sending again');
  });

  it('tells a webhook’s last outcome, or that nothing was delivered yet', () => {
    expect(lastDeliveryLook('success').label).toBe('Delivered');
    expect(lastDeliveryLook('failed').label).toBe('Failed');
    expect(lastDeliveryLook(null).label).toBe('No delivery yet');
  });

  it('gives every look a glyph, so colour is never the only sign', () => {
    for (const status of ['success', 'failed', 'pending'] as const) {
      expect(deliveryLook({ status, attempts: [] }).glyph).not.toBe('');
    }
  });

  it('says what an attempt got back, without repeating itself', () => {
    expect(attemptWords(attempt())).toBe('HTTP 200 in 61 ms');
    expect(
      attemptWords(
        attempt({
          http_status: 500,
          duration_ms: 84.4,
          error: 'HTTP 500',
          response_body: 'upstream unavailable',
        }),
      ),
    ).toBe('HTTP 500 in 84 ms: upstream unavailable');
    expect(attemptWords(attempt({ http_status: null, error: 'connect ECONNREFUSED 127.0.0.1:9' }))).toBe(
      'No reply: connect ECONNREFUSED 127.0.0.1:9',
    );
    expect(attemptWords(attempt({ http_status: null }))).toBe('No reply');
    const long = attemptWords(
      attempt({ http_status: 502, error: 'HTTP 502', response_body: 'x'.repeat(500) }),
    );
    expect(long.length).toBeLessThan(200);
    expect(long.endsWith('…')).toBe(true);
  });

  it('counts the attempts and says when the next is due', () => {
    expect(deliveryProgressWords({ status: 'success', attempts: [attempt()], next_attempt_at: null })).toBe(
      '1 attempt',
    );
    expect(deliveryProgressWords({ status: 'pending', attempts: [], next_attempt_at: null })).toBe(
      'Not tried yet',
    );
    expect(
      deliveryProgressWords({
        status: 'pending',
        attempts: [attempt(), attempt()],
        next_attempt_at: '2026-11-22T10:05:00Z',
      }),
    ).toMatch(/^2 attempts; next at 22 Nov 2026, \d\d:\d\d$/);
  });

  it('names the events', () => {
    expect(eventsWords(['file.completed', 'file.failed'])).toBe('List finished, List failed');
    // An event added to the service after this console was built: shown by its name, not dropped.
    expect(eventsWords(['file.completed', 'file.archived'])).toBe('List finished, file.archived');
  });
});

describe('the circuit breaker', () => {
  it('is read from a reply when the service reports it, and ignored when it does not', () => {
    expect(breakerOf({ id: 'w' })).toBeUndefined();
    expect(breakerOf({ breaker: { state: 'weird' } })).toBeUndefined();
    expect(
      breakerOf({ breaker: { state: 'open', retry_at: '2026-11-29T10:32:00Z', consecutive_failures: 10 } }),
    ).toEqual({
      state: 'open',
      retry_at: '2026-11-29T10:32:00Z',
      consecutive_failures: 10,
    });
  });

  it('says “paused until …” while open, what happens while probing, and nothing while closed', () => {
    const open = breakerWords({ state: 'open', retry_at: '2026-11-29T10:32:00Z', consecutive_failures: 10 });
    expect(open).toMatch(/^Paused until 29 Nov 2026, \d\d:32 after 10 failed attempts in a row\./);
    expect(breakerWords({ state: 'half_open', retry_at: null, consecutive_failures: 1 })).toMatch(
      /^Paused after 1 failed attempt in a row: one delivery is being tried now/,
    );
    expect(breakerWords({ state: 'closed', retry_at: null, consecutive_failures: 0 })).toBeUndefined();
    expect(breakerWords(undefined)).toBeUndefined();
  });
});

describe('the signing secret and the address', () => {
  const now = Date.parse('2026-11-23T12:00:00Z');

  it('tells when the secret was rotated and until when the previous one still signs', () => {
    expect(secretWords({ secret_rotated_at: null, previous_secret_expires_at: null }, now)).toBe(
      'Never rotated',
    );
    expect(
      secretWords(
        { secret_rotated_at: '2026-11-23T09:00:00Z', previous_secret_expires_at: '2026-11-24T09:00:00Z' },
        now,
      ),
    ).toMatch(/^Rotated 23 Nov 2026, .*; the previous secret also signs until 24 Nov 2026/);
    expect(
      secretWords(
        { secret_rotated_at: '2026-11-20T09:00:00Z', previous_secret_expires_at: '2026-11-21T09:00:00Z' },
        now,
      ),
    ).toMatch(/^Rotated 20 Nov 2026, \d\d:\d\d$/);
  });

  it('asks for an https address without credentials before sending it', () => {
    expect(webhookUrlProblem('')).toMatch(/^Enter the address/);
    expect(webhookUrlProblem('hooks.example.com')).toMatch(/^That is not a web address/);
    expect(webhookUrlProblem('http://hooks.example.com/x')).toMatch(/must start with https:\/\//);
    expect(webhookUrlProblem('https://u:p@hooks.example.com/x')).toMatch(/user name and password/);
    expect(webhookUrlProblem(' https://hooks.example.com/emailverify ')).toBeUndefined();
  });
});
