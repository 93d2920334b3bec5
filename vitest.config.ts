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
    testTimeout: 60_000,
    hookTimeout: 120_000,
    projects: [
      {
        extends: true,
        test: {
          name: 'unit',
          include: ['apps/**/*.spec.ts', 'libs/**/*.spec.ts', 'tools/**/*.spec.ts'],
          exclude: ['**/*.int-spec.ts'],
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
          // Integration and end-to-end suites start real services; two cores run them best one file at a time.
          fileParallelism: false,
        },
      },
    ],
  },
});
