import { describe, expect, it } from 'vitest';
import { createDefaultDependencies, secureRandom, systemClock } from './node-dependencies';
import { defaultVerificationOptions } from './options';

describe('default dependencies', () => {
  it('draws random numbers in [0, 1)', () => {
    for (let i = 0; i < 2000; i++) {
      const value = secureRandom();
      expect(value).toBeGreaterThanOrEqual(0);
      expect(value).toBeLessThan(1);
    }
  });

  it('wires every dependency without touching the network', () => {
    const deps = createDefaultDependencies({
      ...defaultVerificationOptions('verifier.test'),
      dnsServers: ['127.0.0.1:5353'],
    });
    expect(typeof deps.resolver.resolveMx).toBe('function');
    expect(typeof deps.dial).toBe('function');
    expect(typeof deps.fetch).toBe('function');
    expect(deps.clock).toBe(systemClock);
    expect(Math.abs(deps.clock.now() - Date.now())).toBeLessThan(60_000);
  });

  it('fills the documented defaults of the settings', () => {
    expect(defaultVerificationOptions('mail.example')).toMatchObject({
      dnsServers: [],
      dnsTimeoutMs: 3000,
      smtpPort: 25,
      smtpHeloName: 'mail.example',
      smtpMailFrom: 'verify@mail.example',
      smtpConnectTimeoutMs: 5000,
      smtpCommandTimeoutMs: 10000,
      smtpMaxConcurrencyPerMx: 5,
      smtpSemaphoreTimeoutMs: 3000,
      dnsblIpZones: ['zen.spamhaus.org'],
      dnsblDomainZones: ['dbl.spamhaus.org'],
      gravatarBaseUrl: 'https://gravatar.com/avatar',
      rdapBaseUrl: 'https://rdap.org',
      smtpAllowPrivateNetworks: false,
    });
  });
});
