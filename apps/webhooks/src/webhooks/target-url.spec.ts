import { DomainError } from '@emailverify/contracts';
import { describe, expect, it } from 'vitest';
import { validateEvents, validateTargetUrl } from './target-url';

function refusal(run: () => unknown): { field: unknown; message: string } {
  try {
    run();
  } catch (err) {
    expect(err).toBeInstanceOf(DomainError);
    const e = err as DomainError;
    expect(e.code).toBe('INVALID_REQUEST');
    return { field: e.details?.field, message: e.message };
  }
  throw new Error('expected a refusal');
}

describe('validateTargetUrl', () => {
  it('accepts absolute https URLs and normalises them', () => {
    expect(validateTargetUrl('https://Hooks.Example.com/in?x=1', false)).toBe(
      'https://hooks.example.com/in?x=1',
    );
    expect(validateTargetUrl('https://93.184.216.34:8443/in', false)).toBe('https://93.184.216.34:8443/in');
  });

  it.each([
    ['http://hooks.example.com/in', 'https'],
    ['ftp://hooks.example.com/in', 'https'],
    ['/relative/path', 'absolute'],
    ['not a url', 'absolute'],
    ['https://user:pass@hooks.example.com/in', 'user name or password'],
    ['https://token@hooks.example.com/in', 'user name or password'],
    [`https://hooks.example.com/${'a'.repeat(2100)}`, '2048'],
    ['https://10.0.0.5/in', 'non-public'],
    ['https://127.0.0.1/in', 'non-public'],
    ['https://[::1]/in', 'non-public'],
    ['https://[::ffff:192.168.0.1]/in', 'non-public'],
    ['https://169.254.169.254/latest', 'non-public'],
  ])('refuses %s, naming url', (url, words) => {
    const { field, message } = refusal(() => validateTargetUrl(url, false));
    expect(field).toBe('url');
    expect(message).toContain(words);
  });

  it('lets private IP literals through when private networks are allowed', () => {
    expect(validateTargetUrl('https://127.0.0.1:8443/in', true)).toBe('https://127.0.0.1:8443/in');
  });
});

describe('validateEvents', () => {
  it('keeps each supported event once', () => {
    expect(validateEvents(['file.failed', 'file.completed', 'file.failed'])).toEqual([
      'file.failed',
      'file.completed',
    ]);
  });

  it.each([[[]], [['file.deleted']], [['verification.completed']], [['file.completed', 'FILE.FAILED']]])(
    'refuses %j, naming events',
    (events) => {
      expect(refusal(() => validateEvents(events)).field).toBe('events');
    },
  );
});
