import { describe, expect, it } from 'vitest';
import { Broadcasts, Subjects } from './subjects';

// The first token of a request/reply subject is what "The <service> service did not answer" names, so it must
// be the name the service runs under (its app and its health-check name).
const services = ['credits', 'verifier', 'file-jobs', 'webhooks'];

describe('subjects', () => {
  it.each(Object.entries(Subjects))('%s is <service>.<noun>.<verb> of a real service', (_, subject) => {
    const [service, noun, verb, ...rest] = subject.split('.');
    expect(services).toContain(service);
    expect(noun).toMatch(/^[a-z]+$/);
    expect(verb).toMatch(/^[a-z]+$/);
    expect(rest).toEqual([]);
  });

  it('gives every request/reply subject to exactly one name', () => {
    const values = Object.values(Subjects);
    expect(new Set(values).size).toBe(values.length);
  });

  it('keeps broadcasts under the service that publishes them', () => {
    expect(Broadcasts.keyChanged.split('.')[0]).toBe('credits');
    expect(Broadcasts.domainFacts.split('.')[0]).toBe('verifier');
  });

  it('gives every service a health ping', () => {
    for (const service of services) expect(Object.values(Subjects)).toContain(`${service}.health.ping`);
  });
});
