import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ConfigError, baseConfigShape, int, list, loadConfig, serviceConfig } from './config';

describe('loadConfig', () => {
  const schema = z.object({
    ...baseConfigShape,
    PORT: int(3000, 0, 65535),
    ZONES: list('a.example,b.example'),
  });

  it('applies defaults and freezes the result', () => {
    const config = loadConfig(schema, {});
    expect(config.PORT).toBe(3000);
    expect(config.NATS_NAMESPACE).toBe('emailverify');
    expect(config.ZONES).toEqual(['a.example', 'b.example']);
    expect(Object.isFrozen(config)).toBe(true);
  });

  it('names the variable that does not validate', () => {
    expect(() => loadConfig(schema, { PORT: 'eighty' })).toThrow(ConfigError);
    expect(() => loadConfig(schema, { PORT: '70000' })).toThrow(/PORT/);
    expect(() => loadConfig(schema, { NATS_URL: 'http://x' })).toThrow(/NATS_URL/);
  });

  it('treats an empty value as unset unless the variable keeps it', () => {
    expect(loadConfig(schema, { ZONES: '' }).ZONES).toEqual(['a.example', 'b.example']);
    expect(loadConfig(schema, { ZONES: '' }, ['ZONES']).ZONES).toEqual([]);
    expect(loadConfig(schema, { ZONES: ' x.test , y.test ' }).ZONES).toEqual(['x.test', 'y.test']);
  });
});

describe('serviceConfig', () => {
  const schema = z.object({ ...baseConfigShape, ZONES: list('a.example') });

  it('loads the environment it is given as loadConfig does, keeping the empty values it names', () => {
    const zones = serviceConfig('zones', schema, { keepEmpty: ['ZONES'] });
    expect(zones.service).toBe('zones');
    expect(zones.load({ ZONES: '' }).ZONES).toEqual([]);
    expect(Object.isFrozen(zones.load({}))).toBe(true);
    expect(() => zones.load({ LOG_LEVEL: 'loud' })).toThrow(/LOG_LEVEL/);
  });

  it('completes what was read, and gives each service a token of its own', () => {
    const counted = serviceConfig('counted', schema, {
      complete: (read) => ({ ...read, zoneCount: read.ZONES.length }),
    });
    expect(counted.load({ ZONES: 'x.test,y.test' }).zoneCount).toBe(2);
    expect(counted.token).not.toBe(serviceConfig('counted', schema).token);
  });
});
