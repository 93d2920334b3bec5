import { createHmac, randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { deliveryHeaders, signingKeys, USER_AGENT } from './signing';

describe('deliveryHeaders', () => {
  const secretBytes = randomBytes(32);
  const secret = `whsec_${secretBytes.toString('base64')}`;
  const body = '{"event":"file.completed","timestamp":"2026-11-23T10:00:00.000Z","data":{"job_id":"x"}}';
  const headers = deliveryHeaders({
    deliveryId: 'c0ffee00-0000-4000-8000-000000000001',
    event: 'file.completed',
    body,
    keys: signingKeys(secret),
    timestamp: 1_790_000_000,
  });

  it('signs `{timestamp}.{body}` with the secret string as the key (X-Webhook-Signature)', () => {
    const expected = createHmac('sha256', secret).update(`1790000000.${body}`).digest('hex');
    expect(headers['X-Webhook-Signature']).toBe(`sha256=${expected}`);
    expect(headers['X-Webhook-Timestamp']).toBe('1790000000');
  });

  it('signs `{id}.{timestamp}.{body}` with the decoded secret, as Standard Webhooks does (webhook-signature)', () => {
    const expected = createHmac('sha256', secretBytes)
      .update(`c0ffee00-0000-4000-8000-000000000001.1790000000.${body}`)
      .digest('base64');
    expect(headers['webhook-signature']).toBe(`v1,${expected}`);
    expect(headers['webhook-id']).toBe('c0ffee00-0000-4000-8000-000000000001');
    expect(headers['webhook-timestamp']).toBe('1790000000');
  });

  it('names the event, the delivery and the sender', () => {
    expect(headers).toMatchObject({
      'Content-Type': 'application/json',
      'User-Agent': USER_AGENT,
      'X-Webhook-Event': 'file.completed',
      'X-Webhook-Id': 'c0ffee00-0000-4000-8000-000000000001',
    });
  });

  it('changes both signatures when one byte of the body changes', () => {
    const other = deliveryHeaders({
      deliveryId: 'c0ffee00-0000-4000-8000-000000000001',
      event: 'file.completed',
      body: body.replace('x', 'y'),
      keys: signingKeys(secret),
      timestamp: 1_790_000_000,
    });
    expect(other['X-Webhook-Signature']).not.toBe(headers['X-Webhook-Signature']);
    expect(other['webhook-signature']).not.toBe(headers['webhook-signature']);
  });
});

describe('deliveryHeaders during and after a rotation overlap', () => {
  const oldSecret = `whsec_${randomBytes(32).toString('base64')}`;
  const newSecret = `whsec_${randomBytes(32).toString('base64')}`;
  const body = '{"event":"file.completed","data":{"job_id":"y"}}';
  const timestamp = Math.floor(Date.now() / 1000);
  const request = {
    deliveryId: 'c0ffee00-0000-4000-8000-000000000002',
    event: 'file.completed',
    body,
    timestamp,
  };
  const contractSignature = (secret: string) =>
    `sha256=${createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex')}`;
  const standardAccepts = (secret: string, headers: Record<string, string>) => {
    try {
      new Webhook(secret).verify(body, headers);
      return true;
    } catch {
      return false;
    }
  };

  it('signs the standard header with both secrets and the contract header with the old one', () => {
    const headers = deliveryHeaders({
      ...request,
      keys: signingKeys(newSecret),
      previous: signingKeys(oldSecret),
    });
    expect(headers['webhook-signature']!.split(' ')).toHaveLength(2);
    expect(standardAccepts(newSecret, headers)).toBe(true);
    expect(standardAccepts(oldSecret, headers)).toBe(true);
    expect(headers['X-Webhook-Signature']).toBe(contractSignature(oldSecret));
  });

  it('signs with the new secret only once the overlap is over', () => {
    const headers = deliveryHeaders({ ...request, keys: signingKeys(newSecret) });
    expect(standardAccepts(newSecret, headers)).toBe(true);
    expect(standardAccepts(oldSecret, headers)).toBe(false);
    expect(headers['X-Webhook-Signature']).toBe(contractSignature(newSecret));
  });
});
