import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';

const root = process.cwd();
const read = (file: string) => readFileSync(path.join(root, file), 'utf8');
const APPS = ['gateway', 'credits', 'verifier', 'file-jobs', 'webhooks'] as const;

/**
 * Variables the deployments set themselves rather than through the chart's `config` / `apps.<app>.env`
 * (which values.schema.json limits to its list of settings): connection URLs, secrets, ports, credentials.
 */
const MANAGED = [
  'NODE_ENV',
  'NODE_OPTIONS',
  'DATABASE_URL',
  'NATS_URL',
  'NATS_USER',
  'NATS_PASSWORD',
  'REDIS_URL',
  'SMTP_PROXY_URL',
  'DOWNLOAD_SIGNING_SECRET',
  'WEBHOOK_SECRET_KEY',
  'WEBHOOK_SECRET_KEYS',
  'PORT',
  'HTTP_PORT',
];
/** Read by an app, left at its default by both deployments: containers listen on every interface. */
const DEFAULT_ONLY = ['HOST'];

/** The settings the Helm chart accepts in `config` and `apps.<app>.env`. */
function helmSettings(): string[] {
  const schema = JSON.parse(read('deploy/helm/emailverify/values.schema.json'));
  return schema.definitions.settings.propertyNames.enum as string[];
}

/**
 * Environment keys of each service of compose.yaml: its own `environment:` entries plus the shared
 * `x-app-env` block it merges. A line-based reader of the file's layout (two-space indentation).
 */
function composeEnvironments(): Map<string, Set<string>> {
  const lines = read('deploy/compose/compose.yaml').split('\n');
  const shared = new Set<string>();
  const services = new Map<string, Set<string>>();
  let block: 'shared' | 'services' | undefined;
  let service: string | undefined;
  let inEnvironment = false;
  for (const line of lines) {
    if (/^\S/.test(line)) {
      block = line.startsWith('x-app-env:')
        ? 'shared'
        : line.startsWith('services:')
          ? 'services'
          : undefined;
      continue;
    }
    if (block === 'shared') {
      const key = /^ {2}([A-Z][A-Z0-9_]*):/.exec(line)?.[1];
      if (key) shared.add(key);
    } else if (block === 'services') {
      const name = /^ {2}([a-z][a-z0-9-]*):\s*$/.exec(line)?.[1];
      if (name) {
        service = name;
        services.set(name, new Set());
        inEnvironment = false;
        continue;
      }
      if (/^ {4}\S/.test(line)) inEnvironment = /^ {4}environment:\s*$/.test(line);
      else if (inEnvironment && service) {
        if (/^ {6}<<: \*app-env\s*$/.test(line)) for (const key of shared) services.get(service)!.add(key);
        const key = /^ {6}([A-Z][A-Z0-9_]*):/.exec(line)?.[1];
        if (key) services.get(service)!.add(key);
      }
    }
  }
  return services;
}

/** Keys of the zod config schemas: what each app reads from its environment. */
function appReads(): Map<string, Set<string>> {
  const keysOf = (text: string) => [...text.matchAll(/^\s+([A-Z][A-Z0-9_]+):/gm)].map((m) => m[1]);
  const base = keysOf(read('libs/service-kit/src/config.ts'));
  // The variables of the download links, which a config takes with withDownloadLinks().
  const links = keysOf(read('libs/service-kit/src/download-links.ts'));
  // How the host reaches mail servers, shared by the verifier and the admin CLI's doctor.
  const egress = keysOf(read('libs/service-kit/src/smtp-egress-config.ts'));
  const reads = new Map<string, Set<string>>();
  for (const app of APPS) {
    const text = read(`apps/${app}/src/config.ts`);
    reads.set(
      app,
      new Set([
        ...keysOf(text),
        ...(text.includes('...baseConfigShape') ? base : []),
        ...(text.includes('withDownloadLinks(') ? links : []),
        ...(text.includes('...smtpEgressConfigShape') ? egress : []),
      ]),
    );
  }
  return reads;
}

const COMPOSE_FILE = 'deploy/compose/compose.yaml';

/**
 * The Docker Compose client: the `docker compose` plugin, else a standalone `docker-compose` (v2, or the v1 that
 * distributions still ship: compose.yaml keeps to what both accept). Undefined on a machine with neither, where
 * the test that runs it is skipped and says so.
 */
function composeClient(): string[] | undefined {
  for (const command of [['docker', 'compose'], ['docker-compose']]) {
    const probe = spawnSync(command[0]!, [...command.slice(1), 'version', '--short'], { encoding: 'utf8' });
    if (probe.status === 0 && /^v?[1-9]\./.test(probe.stdout.trim())) return command;
  }
  return undefined;
}
const compose = composeClient();
if (!compose) process.stderr.write('docker compose config: no Docker Compose client is installed, skipped\n');

/** `docker compose -f compose.yaml config` with `env` and an empty env file (not a developer's .env). */
function composeConfig(env: NodeJS.ProcessEnv) {
  const dir = mkdtempSync(path.join(tmpdir(), 'ev-compose-'));
  try {
    writeFileSync(path.join(dir, 'empty.env'), '');
    return spawnSync(
      compose![0]!,
      [...compose!.slice(1), '-f', COMPOSE_FILE, '--env-file', path.join(dir, 'empty.env'), 'config'],
      { cwd: root, encoding: 'utf8', env: { PATH: process.env.PATH, HOME: process.env.HOME, ...env } },
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The variables .env.example leaves for the operator to fill in (the `--- required` block). */
function requiredSecrets(): string[] {
  const example = read('deploy/compose/.env.example');
  const block = example.slice(example.indexOf('# --- required'), example.indexOf('# --- the stack'));
  return [...block.matchAll(/^([A-Z][A-Z0-9_]*)=$/gm)].map((m) => m[1]!);
}

describe('deployment settings: compose, the Helm values schema and the apps agree', () => {
  const helm = new Set(helmSettings());
  const composeEnv = composeEnvironments();
  const reads = appReads();

  it('finds the lists it compares', () => {
    expect(helm.size).toBeGreaterThan(40);
    for (const app of [...APPS, 'admin'])
      expect(composeEnv.get(app)?.size ?? 0, `compose service ${app}`).toBeGreaterThan(3);
    for (const app of APPS) expect(reads.get(app)!.has('NATS_URL'), `${app} reads NATS_URL`).toBe(true);
  });

  it('passes every setting the Helm chart accepts to each app that reads it, in compose too', () => {
    const missing: string[] = [];
    for (const app of APPS)
      for (const name of reads.get(app)!)
        if (helm.has(name) && !composeEnv.get(app)!.has(name)) missing.push(`${name} (${app})`);
    expect(
      missing,
      `compose.yaml does not pass these settings of values.schema.json: ${missing.join(', ')}`,
    ).toEqual([]);
    const passed = new Set(APPS.flatMap((app) => [...composeEnv.get(app)!]));
    const ignored = [...helm].filter((name) => !passed.has(name));
    expect(
      ignored,
      `compose.yaml passes none of these settings of values.schema.json: ${ignored.join(', ')}`,
    ).toEqual([]);
  });

  it('passes no setting in compose that the Helm chart would refuse', () => {
    const extra = new Set<string>();
    for (const app of APPS)
      for (const name of composeEnv.get(app)!)
        if (!helm.has(name) && !MANAGED.includes(name)) extra.add(name);
    expect(
      [...extra],
      `compose.yaml passes settings that values.schema.json does not accept: ${[...extra].join(', ')}`,
    ).toEqual([]);
  });

  it('accepts in Helm exactly the settings the apps read (the rest being set by the deployments)', () => {
    const read = new Set(APPS.flatMap((app) => [...reads.get(app)!]));
    const unread = [...helm].filter((name) => !read.has(name));
    expect(unread, `values.schema.json accepts settings no app reads: ${unread.join(', ')}`).toEqual([]);
    const unknown = [...read].filter(
      (name) => !helm.has(name) && !MANAGED.includes(name) && !DEFAULT_ONLY.includes(name),
    );
    expect(
      unknown,
      `apps read settings that neither values.schema.json (definitions.settings) nor the deployments provide: ${unknown.join(', ')}`,
    ).toEqual([]);
  });

  it('sets the managed variables an app reads, in compose and in the Helm templates', () => {
    const templates = readdirSync(path.join(root, 'deploy/helm/emailverify/templates'))
      .filter((f) => f.endsWith('.yaml'))
      .map((f) => read(`deploy/helm/emailverify/templates/${f}`))
      .join('\n');
    const missing: string[] = [];
    for (const app of APPS)
      for (const name of MANAGED)
        if (reads.get(app)!.has(name) && !composeEnv.get(app)!.has(name))
          missing.push(`${name} (compose ${app})`);
    for (const name of MANAGED)
      if (!new RegExp(`(name: ${name}\\b|^\\s+${name}:)`, 'm').test(templates))
        missing.push(`${name} (Helm)`);
    expect(missing, `not set: ${missing.join(', ')}`).toEqual([]);
    // The admin CLI connects as its own NATS user.
    for (const name of ['NATS_URL', 'NATS_NAMESPACE', 'NATS_USER', 'NATS_PASSWORD'])
      expect(composeEnv.get('admin')!.has(name), `${name} (compose admin)`).toBe(true);
  });

  it.skipIf(!compose)(
    'docker compose config accepts compose.yaml with the secrets of .env.example, and refuses it without them',
    () => {
      const secrets = requiredSecrets();
      expect(secrets).toEqual(expect.arrayContaining(['DOWNLOAD_SIGNING_SECRET', 'NATS_ADMIN_PASSWORD']));
      const missing = composeConfig({});
      expect(missing.status).not.toBe(0);
      expect(missing.stderr).toMatch(/set [A-Z_]+ in deploy\/compose\/\.env/);
      const env = Object.fromEntries(secrets.map((name) => [name, `p${randomBytes(12).toString('hex')}`]));
      const result = composeConfig(env);
      expect(result.status, result.stderr).toBe(0);
      // What compose itself resolves (anchors, merged `x-app-env`) is what the lists above were read from.
      const resolved = parse(result.stdout) as {
        services: Record<string, { environment?: Record<string, string | null> }>;
      };
      for (const app of [...APPS, 'admin']) {
        const environment = resolved.services[app]?.environment ?? {};
        expect(new Set(Object.keys(environment)), `environment of ${app}`).toEqual(composeEnv.get(app));
      }
      expect(resolved.services.gateway!.environment!.DOWNLOAD_SIGNING_SECRET).toBe(
        env.DOWNLOAD_SIGNING_SECRET,
      );
    },
  );
});
