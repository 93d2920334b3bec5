import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ConfigError } from '@emailverify/service-kit';
import { afterAll, describe, expect, it } from 'vitest';
import { engineOptions, verifierConfig } from './config';

describe('verifier configuration of SMTP egress and provider rules', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'verifier-config-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  const failure = (env: Record<string, string>): string => {
    try {
      verifierConfig.load(env);
    } catch (error) {
      expect(error).toBeInstanceOf(ConfigError);
      return (error as ConfigError).message;
    }
    throw new Error('the configuration was accepted');
  };

  it('reads the SOCKS5 proxies of SMTP_PROXY_URL, credentials percent-decoded', () => {
    const config = verifierConfig.load({
      SMTP_PROXY_URL: 'socks5://probe:p%40ss@10.0.0.5:1081, socks5://proxy2.example.net',
    });
    expect(engineOptions(config).smtpProxies).toEqual([
      { host: '10.0.0.5', port: 1081, userId: 'probe', password: 'p@ss', label: '10.0.0.5:1081' },
      {
        host: 'proxy2.example.net',
        port: 1080,
        userId: undefined,
        password: undefined,
        label: 'proxy2.example.net:1080',
      },
    ]);
    expect(engineOptions(verifierConfig.load({})).smtpProxies).toEqual([]);
  });

  it.each([
    ['http://user:secret@proxy:8080', /SMTP_PROXY_URL: proxy 1: scheme http: is not supported/],
    ['socks5://proxy:1080,not a url secret', /SMTP_PROXY_URL: proxy 2: not a URL/],
    ['socks5://user:secret@proxy:1080/path', /SMTP_PROXY_URL: proxy 1: .*path/],
  ])('refuses SMTP_PROXY_URL=%j naming the variable, never the password', (value, message) => {
    const text = failure({ SMTP_PROXY_URL: value });
    expect(text).toMatch(message);
    expect(text).not.toContain('secret');
  });

  it('reads SMTP_PROVIDER_RULES_FILE with the defaults of each rule filled in', () => {
    const file = path.join(dir, 'rules.json');
    writeFileSync(
      file,
      JSON.stringify({ rules: [{ name: 'Example', mx: ['*.MX.Example.NET.'], acceptsAnyRecipient: true }] }),
    );
    expect(engineOptions(verifierConfig.load({ SMTP_PROVIDER_RULES_FILE: file })).smtpProviderRules).toEqual([
      { name: 'Example', mx: ['*.mx.example.net'], catchAllProbe: true, acceptsAnyRecipient: true },
    ]);
  });

  it.each([
    ['missing.json', undefined, /SMTP_PROVIDER_RULES_FILE: .*missing\.json: ENOENT/],
    ['broken.json', '{"rules": [', /SMTP_PROVIDER_RULES_FILE: .*broken\.json: .*JSON/],
    ['unknown-field.json', '{"rules":[{"name":"x","mx":["a.b"],"acceptAll":true}]}', /rules\.0.*acceptAll/],
    [
      'bad-pattern.json',
      '{"rules":[{"name":"x","mx":["a.*.b"]}]}',
      /rules\.0\.mx\.0: a host name or \*\.suffix/,
    ],
    ['bad-cap.json', '{"rules":[{"name":"x","mx":["a.b"],"maxConnections":0}]}', /rules\.0\.maxConnections/],
  ])(
    'refuses a bad provider-rules file (%s) naming the variable and the problem',
    (name, content, message) => {
      const file = path.join(dir, name);
      if (content !== undefined) writeFileSync(file, content);
      const text = failure({ SMTP_PROVIDER_RULES_FILE: file });
      expect(text).toContain('SMTP_PROVIDER_RULES_FILE');
      expect(text).toMatch(message);
    },
  );

  it('refuses a REDIS_URL that is not a redis:// URL', () => {
    expect(failure({ REDIS_URL: 'http://cache:6379' })).toMatch(/REDIS_URL: must be a redis:\/\/ URL/);
  });
});
