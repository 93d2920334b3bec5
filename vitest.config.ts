import { availableParallelism } from 'node:os';
import path from 'node:path';
import swc from 'unplugin-swc';
import { BaseSequencer, type TestSpecification } from 'vitest/node';
import { defineConfig } from 'vitest/config';
import tsconfig from './tsconfig.base.json';

// Path aliases come from tsconfig.base.json so tests, the type-checker and the swc build agree.
const alias = Object.fromEntries(
  Object.entries(tsconfig.compilerOptions.paths).map(([name, [target]]) => [
    name,
    path.resolve(__dirname, target),
  ]),
);

// V8's compile cache for every process of the run (Vitest's workers inherit it; TestSuite hands it to the apps it
// starts): each worker and each app otherwise compiles the same modules again.
process.env.NODE_COMPILE_CACHE ||= path.join(__dirname, '.data', 'compile-cache');

/**
 * The files that take longest (over 12 s each in a fresh clone's run, hooks included), slowest first. A fresh clone
 * has no timings of an earlier run, and Vitest then starts the largest files first: a small file that waits on
 * timers (a breaker's pause, a sweep) started late would run on alone at the end.
 */
const SLOW_FILES = [
  'test/image/image-build.e2e-spec.ts',
  'test/e2e/console.e2e-spec.ts',
  'test/e2e/restart-faults.e2e-spec.ts',
  'test/e2e/graceful-shutdown.e2e-spec.ts',
  'test/e2e/webhooks-faults.e2e-spec.ts',
  'test/e2e/start.e2e-spec.ts',
  'test/e2e/file-jobs-listing.e2e-spec.ts',
  'test/e2e/file-jobs-faults.e2e-spec.ts',
  'test/e2e/openapi.e2e-spec.ts',
  'test/e2e/webhooks-isolation.e2e-spec.ts',
  'test/e2e/nats-cluster.e2e-spec.ts',
  'test/e2e/webhooks-delivery.e2e-spec.ts',
  'test/e2e/file-jobs.e2e-spec.ts',
  'test/e2e/verification.e2e-spec.ts',
  'test/e2e/idempotency.e2e-spec.ts',
  'test/lint/module-boundaries.e2e-spec.ts',
  'libs/messaging/src/messaging.int-spec.ts',
  'test/e2e/webhooks-rotation.e2e-spec.ts',
  'test/e2e/graceful-shutdown-merge.e2e-spec.ts',
  'test/e2e/file-retention.e2e-spec.ts',
  'test/e2e/rate-limits.e2e-spec.ts',
  'test/e2e/greylisting.e2e-spec.ts',
  'tools/admin/admin.int-spec.ts',
].map((file) => path.join(__dirname, file));

/** Vitest's order (slowest of the last run first, else largest first), with SLOW_FILES ahead of the rest. */
class SlowFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const rank = (spec: TestSpecification) => {
      const i = SLOW_FILES.indexOf(spec.moduleId);
      return i === -1 ? SLOW_FILES.length : i;
    };
    return sorted
      .map((spec, i) => ({ spec, i }))
      .sort((a, b) => rank(a.spec) - rank(b.spec) || a.i - b.i)
      .map(({ spec }) => spec);
  }
}

export default defineConfig({
  plugins: [swc.vite({ module: { type: 'es6' } })],
  resolve: { alias },
  test: {
    globals: false,
    pool: 'forks',
    // One worker more than the machine has cores: an integration file spends much of its time waiting on its
    // services, mail servers and timers, and with one file per core a good part of the CPU stayed idle.
    maxWorkers: availableParallelism() + 1,
    testTimeout: 60_000,
    // Room for a whole suite to start while another file starts its own beside it on a busy machine.
    hookTimeout: 240_000,
    sequence: { sequencer: SlowFirst },
    projects: [
      {
        extends: true,
        test: {
          name: 'unit',
          // Unit and service specs: no PostgreSQL, NATS, Redis or built apps (`npm run test:unit`).
          include: ['apps/**/*.spec.ts', 'libs/**/*.spec.ts', 'tools/**/*.spec.ts', 'test/**/*.spec.ts'],
          exclude: ['**/*.int-spec.ts'],
          // A worker keeps its module cache from one file to the next instead of importing Nest, TypeORM and
          // the service kit again for each (two thirds of the tier's time went on imports). Unit specs leave no
          // global state behind: no vi.mock, fake timers and env changes are put back in the file that made them.
          isolate: false,
        },
      },
      {
        extends: true,
        test: {
          name: 'integration',
          include: [
            'apps/**/*.int-spec.ts',
            'libs/**/*.int-spec.ts',
            'tools/**/*.int-spec.ts',
            'test/**/*.e2e-spec.ts',
          ],
          // The apps' modules compiled once into the compile cache, before any suite starts them.
          globalSetup: ['test/setup/integration.ts'],
          // As in the unit tier, a worker keeps its modules from one file to the next (the harness, pg, the NATS
          // client): each file otherwise spent over a second of a core importing them again. Files keep their
          // state in their own suite, database and namespace, and put back what they change in this process.
          isolate: false,
          // Several files at a time (maxWorkers): each starts its own suite on its own ports, database and NATS
          // namespace, and none writes into the checkout.
        },
      },
    ],
  },
});
