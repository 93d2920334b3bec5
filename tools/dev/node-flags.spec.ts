import { readFileSync } from 'node:fs';
import path from 'node:path';
import { STREAMING_HEAP_GROWING_PERCENT } from '@emailverify/service-kit';
import { APP_NODE_FLAGS, GATEWAY_NODE_FLAGS } from '@emailverify/testing';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
// @ts-expect-error: a plain ES module of the dev tools, without type declarations
import { GATEWAY, GATEWAY_NODE_FLAGS as DEV_GATEWAY, NODE_FLAGS as DEV_APPS } from './apps.mjs';

/**
 * The V8 heap settings have one source, tools/dev/node-flags.json; every copy that cannot read it (the image,
 * compose, the Helm chart, the constant service-kit sets at start) is held to it here.
 */
const root = path.resolve(__dirname, '..', '..');
const read = (file: string): string => readFileSync(path.join(root, file), 'utf8');
const source = JSON.parse(read('tools/dev/node-flags.json')) as {
  apps: string[];
  gateway: string[];
  streamingHeapGrowingPercent: number;
};

describe('V8 heap settings (tools/dev/node-flags.json)', () => {
  it('sets a young and an old generation bound for the apps and for the gateway', () => {
    for (const flags of [source.apps, source.gateway]) {
      expect(flags.some((flag) => /^--max-semi-space-size=\d+$/.test(flag))).toBe(true);
      expect(flags.some((flag) => /^--max-old-space-size=\d+$/.test(flag))).toBe(true);
    }
  });

  it('is what `npm start` and the test harness launch the apps with', () => {
    expect(DEV_APPS).toEqual(source.apps);
    expect(DEV_GATEWAY).toEqual(source.gateway);
    expect((GATEWAY as { nodeFlags: string[] }).nodeFlags).toEqual(source.gateway);
    expect(APP_NODE_FLAGS).toEqual(source.apps);
    expect(GATEWAY_NODE_FLAGS).toEqual(source.gateway);
  });

  it("is the image's NODE_OPTIONS", () => {
    const lines = read('Dockerfile').match(/^ENV NODE_OPTIONS=.*$/gm) ?? [];
    expect(lines).toEqual([`ENV NODE_OPTIONS="${source.apps.join(' ')}"`]);
  });

  it("is the gateway's NODE_OPTIONS in compose, and no other service sets its own", () => {
    const compose = parse(read('deploy/compose/compose.yaml'), { merge: true }) as {
      services: Record<string, { environment?: Record<string, unknown> }>;
    };
    const set = Object.entries(compose.services)
      .filter(([, service]) => service.environment?.NODE_OPTIONS !== undefined)
      .map(([name, service]) => [name, service.environment?.NODE_OPTIONS]);
    expect(set).toEqual([['gateway', source.gateway.join(' ')]]);
  });

  it("is the gateway's NODE_OPTIONS in the Helm chart, and no other app sets its own", () => {
    const template = read('deploy/helm/emailverify/templates/deployments.yaml');
    const values = [...template.matchAll(/- name: NODE_OPTIONS\s+value: "([^"]*)"/g)].map((m) => m[1]);
    expect(values).toEqual([source.gateway.join(' ')]);
    // Set in the gateway's branch of the template only.
    const gatewayBranch =
      /\{\{- if eq \$name "gateway" \}\}([\s\S]*?)\{\{- else \}\}([\s\S]*?)\{\{- end \}\}/.exec(template);
    expect(gatewayBranch?.[1]).toContain('NODE_OPTIONS');
    expect(gatewayBranch?.[2]).not.toContain('NODE_OPTIONS');
    const chartValues = read('deploy/helm/emailverify/values.yaml');
    expect(chartValues).not.toMatch(/max-(semi|old)-space-size/);
  });

  it('is the heap growing factor file-jobs and the verifier set when they start', () => {
    expect(STREAMING_HEAP_GROWING_PERCENT).toBe(source.streamingHeapGrowingPercent);
  });
});
