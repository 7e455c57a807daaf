/**
 * `npm run lint` runs this dependency check (dependency-cruiser) over the TypeScript of every
 * workspace. See ARCHITECTURE.md for the areas and the arrows between them.
 *
 * Areas are the folders of server/src. They meet only through each other's index.ts; infrastructure
 * (the folders below and the configuration) is imported directly and imports no area. Tests may
 * reach into any file (a test sets up what it needs); everything else may not.
 *
 * .tsx files are not read: the swc parser dependency-cruiser offers (TypeScript 7 has no compiler
 * API for it) does not parse JSX. Biome's noRestrictedImports keeps widget/ and studio/ (.tsx
 * included) off the server.
 */
const infrastructure = '(http|db|crypto|openapi|providers|idempotency|instances|metrics|tracing)'
const test = '(\\.test\\.ts$|/test/)'

module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'A file circle: two files that need each other belong together, or one needs an interface.',
      from: {},
      to: { circular: true },
    },
    {
      name: 'area-through-index',
      severity: 'error',
      comment: "An area's files are private: other areas use its index.ts.",
      from: { path: '^server/src/([^/]+)/', pathNot: test },
      to: {
        path: '^server/src/[^/]+/',
        pathNot: ['^server/src/$1/', `^server/src/${infrastructure}/`, '^server/src/[^/]+/index\\.ts$'],
      },
    },
    {
      name: 'root-through-index',
      severity: 'error',
      comment: "The start-up files (app, main, context…) use an area's index.ts too.",
      from: { path: '^server/src/[^/]+\\.ts$', pathNot: test },
      to: {
        path: '^server/src/[^/]+/',
        pathNot: [`^server/src/${infrastructure}/`, '^server/src/[^/]+/index\\.ts$'],
      },
    },
    {
      name: 'infrastructure-imports-no-area',
      severity: 'error',
      comment:
        'http/, db/, crypto/, openapi/, providers/, idempotency/, instances/ and config serve every area and know none.',
      from: {
        path: [`^server/src/${infrastructure}/`, '^server/src/config[^/]*\\.ts$'],
        pathNot: test,
      },
      to: { path: '^server/src/[^/]+/', pathNot: `^server/src/${infrastructure}/` },
    },
    {
      name: 'clients-not-to-server',
      severity: 'error',
      comment:
        'The worker, the widget, the studio and the shared workspaces speak to the server over its API, never import it.',
      from: { path: '^(agent|widget|studio|platform|shared|client)/', pathNot: test },
      to: { path: '^server/' },
    },
  ],
  options: {
    parser: 'swc',
    tsConfig: { fileName: 'tsconfig.json' },
    tsPreCompilationDeps: true,
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '(node_modules|/dist/|\\.tsx$)' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
      extensions: ['.ts', '.js', '.d.ts'],
    },
  },
}
