// `npm run lint` (with `prettier --check`). typescript-eslint's recommended rules without type
// information: the type-aware set would re-run most of tsc's work, which `npm test` already does.
import js from '@eslint/js';
import { defineConfig, globalIgnores } from 'eslint/config';
import globals from 'globals';
import tseslint from 'typescript-eslint';

export default defineConfig(
  globalIgnores(['dist/', '.readme-snippets/', 'bench/results/']),
  {
    // A disable comment must silence something, and only a rule this file configures.
    linterOptions: { reportUnusedDisableDirectives: 'error', reportUnusedInlineConfigs: 'error' },
  },
  js.configs.recommended,
  tseslint.configs.recommended,
  {
    rules: {
      // JSON-Logic's `==` is JavaScript's loose equality; everywhere else a loose comparison is a bug.
      // `x != null` (null or undefined) stays the idiom it is.
      eqeqeq: ['error', 'always', { null: 'ignore' }],
      // A leading underscore marks a binding kept on purpose: a parameter a signature needs, or a
      // property taken out of an object so the rest can be passed on.
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrorsIgnorePattern: '^_', destructuredArrayIgnorePattern: '^_', ignoreRestSiblings: true },
      ],
    },
  },
  {
    files: ['test/**'],
    rules: {
      // Tests read parsed JSON output loosely, and match column-aligned CLI tables space for space.
      '@typescript-eslint/no-explicit-any': 'off',
      'no-regex-spaces': 'off',
    },
  },
  {
    // Plain JavaScript: scripts, test fixtures loaded as server modules, and this file.
    files: ['**/*.{js,mjs}'],
    languageOptions: { globals: globals.node },
  },
);
