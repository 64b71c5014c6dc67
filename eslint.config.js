import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import { readFileSync } from 'node:fs';

// The house's arrows live in architecture.json (also checked by test/architecture.test.ts): each folder of
// src/ may import only the folders listed for it, and never the packages listed against it.
function architectureRules() {
  const { allowedImports, forbiddenPackages } = JSON.parse(
    readFileSync(new URL('./architecture.json', import.meta.url), 'utf8'),
  );
  const folders = ['api', 'cel', 'ir', 'translate', 'deployer', 'controller', 'xds', 'proxy', 'config', 'cli'];
  return folders.map((room) => ({
    files: [`src/${room}/**`],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            ...folders
              .filter((r) => r !== room && !allowedImports[room].includes(r))
              .map((r) => ({
                group: [`**/${r}/**`],
                message: `src/${room} may not import src/${r} (architecture.json)`,
              })),
            ...(forbiddenPackages[room] ?? []).map((p) => ({
              group: [p, `${p}/**`],
              message: `src/${room} must not load ${p} (architecture.json)`,
            })),
          ],
        },
      ],
    },
  }));
}

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
  ...architectureRules(),
  {
    // The proxy loads only what its configuration uses (docs/performance.md): undici's values come from its
    // slim entry, and the MCP SDK (with zod) only through the module the stdio and SSE targets load lazily.
    files: ['src/proxy/**'],
    ignores: ['src/proxy/http/undici.ts', 'src/proxy/mcp/upstream.ts'],
    rules: {
      // A getter or setter written in an object literal is a new closure and a new hidden class each time
      // the literal is evaluated; V8 keeps those in the old generation, with everything the closure reaches
      // (a request's objects were promoted this way: docs/performance.md). Use a class or a shared accessor.
      'no-restricted-syntax': [
        'error',
        {
          selector: "ObjectExpression > Property[kind='get'], ObjectExpression > Property[kind='set']",
          message: 'no getters or setters in object literals on the proxy: a class, or one shared accessor',
        },
      ],
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          paths: [
            {
              name: 'undici',
              allowTypeImports: true,
              message:
                "take undici's values from src/proxy/http/undici.ts (its index loads 8 MiB the proxy never uses)",
            },
          ],
          patterns: [
            {
              group: ['@modelcontextprotocol/sdk/**'],
              allowTypeImports: true,
              message:
                'the MCP SDK loads only with a stdio or SSE target (mcp/upstream.ts, through lazy/mcp-client.ts)',
            },
          ],
        },
      ],
    },
  },
);
