import path from 'node:path';
import swc from 'unplugin-swc';
import { defineConfig } from 'vitest/config';
import tsconfig from './tsconfig.base.json';

// Path aliases come from tsconfig.base.json so tests, the type-checker and the swc build agree.
const alias = Object.fromEntries(
  Object.entries(tsconfig.compilerOptions.paths).map(([name, [target]]) => [
    name,
    path.resolve(__dirname, target),
  ]),
);

export default defineConfig({
  plugins: [swc.vite({ module: { type: 'es6' } })],
  resolve: { alias },
  test: {
    globals: false,
    pool: 'forks',
    // Two workers on a two-core machine (vitest's default there is one): unit files run two at a time, and beside
    // the integration file in hand.
    maxWorkers: 2,
    testTimeout: 60_000,
    // Room for a whole suite to start while another file starts its own beside it on a busy machine.
    hookTimeout: 240_000,
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
          // Two files at a time (maxWorkers): each starts its own suite on its own ports, database and NATS
          // namespace, and none writes into the checkout.
        },
      },
    ],
  },
});
