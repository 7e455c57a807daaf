import preact from '@preact/preset-vite'
import { defineConfig } from 'vite'

/**
 * One file per format: `parley.js` (IIFE, the script-tag loader and the whole chat) and `parley.mjs`
 * (the same as an ES module). Library mode does not minify ES output by itself, so it is asked to;
 * `npm run bench -- widget` measures what ships.
 */
export default defineConfig({
  plugins: [preact({ devToolsEnabled: false, prefreshEnabled: false })],
  build: {
    target: 'es2022',
    minify: true,
    outDir: 'dist',
    emptyOutDir: true,
    sourcemap: false,
    // Library mode leaves ES output unminified (for bundlers downstream); this file ships as is.
    rolldownOptions: { output: { minify: true } },
    lib: {
      entry: 'src/index.ts',
      formats: ['iife', 'es'],
      name: 'ParleyWidget',
      fileName: (format) => (format === 'es' ? 'parley.mjs' : 'parley.js'),
    },
  },
})
