import { builtinModules } from 'node:module';
import nx from '@nx/eslint-plugin';
import prettier from 'eslint-config-prettier';
import tseslint from 'typescript-eslint';

const INDEX_ONLY = {
  // The service kit's second entry, its configuration readers without Nest (for the admin CLI).
  group: ['@emailverify/*/*', '!@emailverify/service-kit/config'],
  message: 'Import a library through its public index only.',
};
const NOT_TESTING = { group: ['@emailverify/testing'], message: 'The testing library is for tests only.' };

export default tseslint.config(
  {
    // Build output, and the typed client's types, which the build generates from docs/openapi*.json.
    ignores: [
      'dist/**',
      'node_modules/**',
      '.data/**',
      '.nx/**',
      'coverage/**',
      'deploy/**',
      '**/*.mjs',
      'libs/client/src/generated/**',
    ],
  },
  ...nx.configs['flat/base'],
  ...tseslint.configs.recommended,
  {
    files: ['**/*.ts', '**/*.tsx'],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      // Apps depend only on libs; libs only on libs; contracts on nothing of ours (STYLE.md "Shape").
      '@nx/enforce-module-boundaries': [
        'error',
        {
          enforceBuildableLibDependency: false,
          allow: [],
          depConstraints: [
            { sourceTag: 'type:app', onlyDependOnLibsWithTags: ['type:lib'] },
            { sourceTag: 'type:lib', onlyDependOnLibsWithTags: ['type:lib'] },
            { sourceTag: 'lib:contracts', onlyDependOnLibsWithTags: ['lib:contracts'] },
            // The testing library is allowed by tag here; no-restricted-imports keeps it out of non-test files.
            {
              sourceTag: 'lib:verification',
              onlyDependOnLibsWithTags: ['lib:contracts', 'lib:net-policy', 'lib:testing'],
            },
            { sourceTag: 'lib:net-policy', onlyDependOnLibsWithTags: [] },
            // The typed client is for customers: it stands alone, on openapi-fetch only.
            { sourceTag: 'lib:client', onlyDependOnLibsWithTags: [] },
            // The XLSX reading both the file service and the web console do: it stands alone (and runs in browsers,
            // see below).
            { sourceTag: 'lib:spreadsheet', onlyDependOnLibsWithTags: [] },
            // The web console runs in the browser on the public API only: the typed client and contracts (types and
            // the pure rules it shares with the services, such as the address column's), the XLSX reading it
            // shares with the file service, never NATS, SQL, the services' libraries or their packages.
            {
              sourceTag: 'scope:console',
              onlyDependOnLibsWithTags: ['lib:client', 'lib:contracts', 'lib:spreadsheet'],
              bannedExternalImports: [
                '@nats-io/*',
                'pg',
                'typeorm',
                'ioredis',
                'redis-semaphore',
                '@nestjs/*',
                'express',
                'node:*',
              ],
            },
          ],
        },
      ],
      'no-restricted-imports': ['error', { patterns: [INDEX_ONLY, NOT_TESTING] }],
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/switch-exhaustiveness-check': [
        'error',
        { considerDefaultExhaustiveForUnions: true },
      ],
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', ignoreRestSiblings: true, varsIgnorePattern: '^_' },
      ],
      '@typescript-eslint/consistent-type-imports': 'off',
    },
  },
  {
    // Tests (and the testing library itself) may use the testing library.
    files: [
      '**/*.spec.ts',
      '**/*.int-spec.ts',
      '**/*.e2e-spec.ts',
      'libs/testing/**/*.ts',
      'apps/*/src/testing/**/*.ts',
      'test/**/*.ts',
      'tools/bench/**/*.ts',
    ],
    rules: {
      'no-restricted-imports': ['error', { patterns: [INDEX_ONLY] }],
    },
  },
  {
    // The web console and the spreadsheet library (the console reads XLSX files with it) run in the browser, where
    // Node.js's modules do not exist; the boundary rule's bannedExternalImports does not see built-in modules.
    files: ['libs/spreadsheet/**/*.ts', 'apps/console/src/**/*.ts', 'apps/console/src/**/*.tsx'],
    ignores: ['**/*.spec.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            INDEX_ONLY,
            NOT_TESTING,
            {
              group: ['node:*', ...builtinModules],
              message: 'This code runs in browsers, which have no Node.js modules.',
            },
          ],
        },
      ],
    },
  },
  {
    // Unit files share their worker's modules (vitest.config.ts, isolate: false): a module replaced for one
    // file would stay replaced for the next.
    files: ['**/*.spec.ts'],
    rules: {
      'no-restricted-properties': [
        'error',
        { object: 'vi', property: 'mock', message: 'Unit files share modules: pass a stand-in instead.' },
        { object: 'vi', property: 'doMock', message: 'Unit files share modules: pass a stand-in instead.' },
        {
          object: 'vi',
          property: 'stubGlobal',
          message: 'Unit files share modules: pass a stand-in instead.',
        },
      ],
    },
  },
  prettier,
);
