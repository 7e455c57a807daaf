import { fileURLToPath } from 'node:url'
import { build } from 'esbuild'

/**
 * `npm run build -w @parley/agent`: bundles the worker (dist/main.js) and the job entry
 * (dist/entry.js) into plain JavaScript, with our workspaces' code inside and every npm package
 * left to node_modules. Plain node runs them: each call's job process then carries no TypeScript
 * loader, which would cost about 56 MB of its ~114 MB (PSS, measured on this machine).
 */
const root = fileURLToPath(new URL('.', import.meta.url))

await build({
  absWorkingDir: root,
  entryPoints: ['src/main.ts', 'src/entry.ts'],
  outdir: 'dist',
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  logLevel: 'warning',
  plugins: [
    {
      name: 'npm-packages-stay-external',
      setup: (plugin) => {
        plugin.onResolve({ filter: /^[^./]/ }, ({ path }) =>
          path.startsWith('@parley/') ? undefined : { path, external: true },
        )
      },
    },
  ],
})
