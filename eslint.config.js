import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'crds/**', 'charts/**', 'src/**/gen/**', 'test/cluster/**', '.cache/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
      'no-console': ['error', { allow: ['error'] }],
    },
  },
  {
    // TypeScript already checks names; plain JS files here run on Node.
    files: ['**/*.js', '**/*.mjs'],
    rules: { 'no-undef': 'off' },
  },
  {
    files: ['scripts/**', 'bench/**', 'bin/**', 'src/cli/**', 'src/cli.ts', 'test/**'],
    rules: { 'no-console': 'off' },
  },
  {
    files: ['src/proxy/**'],
    rules: {
      'no-restricted-imports': ['error', { patterns: ['**/controller/**', '@kubernetes/client-node'] }],
    },
  },
  {
    files: ['src/translate/**', 'src/api/**', 'src/deployer/**'],
    rules: {
      'no-restricted-imports': ['error', { patterns: ['**/controller/**', '@kubernetes/client-node', 'node:fs', 'node:http', 'node:net'] }],
    },
  },
);
