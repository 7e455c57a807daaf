import preact from '@preact/preset-vite'
import { defineConfig } from 'vite'

/**
 * The studio: a single-page app served by the server under /studio/ (every path of it answers
 * index.html). `npm run bench -- studio` measures what its first load costs. The output folder is
 * not emptied first: a build while a server serves the last one (the tests run `npm start` beside
 * the studio's browser test) only adds hashed files and replaces index.html.
 */
export default defineConfig({
  base: '/studio/',
  plugins: [preact()],
  build: { target: 'es2022', outDir: 'dist', emptyOutDir: false, sourcemap: false },
})
