import { fileURLToPath } from 'node:url'
import { build, defineConfig, type UserConfig } from 'vite'

const target = 'es2022'

// Preact's classic h(type, props, ...children) instead of the automatic runtime's jsx(type,
// {children}): the same elements in about 200 fewer bytes of gzip on the first load.
const oxc = {
  jsx: { runtime: 'classic', pragma: 'h', pragmaFrag: 'Fragment' },
  jsxInject: "import { h, Fragment } from 'preact'",
} as const

/** The panel chunk runs on the first load's Preact, hooks and signals: see src/shared-runtime.ts. */
const sharedRuntime = fileURLToPath(new URL('src/shared-runtime.ts', import.meta.url))
const onSharedRuntime = [{ find: /^(preact|preact\/hooks|@preact\/signals)$/, replacement: sharedRuntime }]

/**
 * A lazily loaded part as its own ES module, `<name>-[hash].js`: the IIFE loader cannot
 * code-split, so each part is built first and its hashed name handed to the main build, which
 * fetches it with a dynamic import() when it is needed (src/chunks.ts). The panel chunk (the open
 * panel, markdown, its styles, the reply stream reader) loads when the browser is idle or the
 * visitor reaches for the launcher; the voice chunk (livekit-client and its adapter) when a call
 * starts; the lang chunk (Urdu and Sindhi words) when a widget speaks one of them. Returns the file
 * name.
 */
const buildChunk = async (
  entryFile: string,
  name: string,
  { isFirst, isOnSharedRuntime = false }: { isFirst: boolean; isOnSharedRuntime?: boolean },
) => {
  const output = await build({
    configFile: false,
    logLevel: 'warn',
    // Only the panel chunk has JSX; injecting Preact elsewhere would bundle a copy of it.
    ...(isOnSharedRuntime ? { oxc, resolve: { alias: onSharedRuntime } } : {}),
    build: {
      target,
      outDir: 'dist',
      emptyOutDir: isFirst,
      sourcemap: false,
      rolldownOptions: { output: { minify: true } },
      lib: { entry: entryFile, formats: ['es'], fileName: () => `${name}-[hash].js` },
    },
  })
  const chunks = (Array.isArray(output) ? output : [output]).flatMap((result) =>
    'output' in result ? result.output : [],
  )
  const entry = chunks.find((chunk) => chunk.type === 'chunk' && chunk.isEntry)
  if (!entry) throw new Error(`the ${name} chunk was not built`)
  return entry.fileName
}

/**
 * One file per format: `parley.js` (IIFE, the script-tag loader, the launcher and the chat's state)
 * and `parley.mjs` (the same as an ES module), plus the lazily loaded chunks above. Library mode
 * does not minify ES output by itself, so it is asked to; `npm run bench -- widget` measures what
 * ships.
 */
export default defineConfig(
  async ({ command }): Promise<UserConfig> => ({
    oxc,
    define: {
      __PARLEY_VOICE_CHUNK__: JSON.stringify(
        command === 'build' ? await buildChunk('src/voice/call.ts', 'voice', { isFirst: true }) : 'voice.js',
      ),
      __PARLEY_LANG_CHUNK__: JSON.stringify(
        command === 'build' ? await buildChunk('src/i18n-rtl.ts', 'lang', { isFirst: false }) : 'lang.js',
      ),
      __PARLEY_PANEL_CHUNK__: JSON.stringify(
        command === 'build'
          ? await buildChunk('src/panel-chunk.ts', 'panel', { isFirst: false, isOnSharedRuntime: true })
          : 'panel.js',
      ),
    },
    build: {
      target,
      minify: true,
      outDir: 'dist',
      // The voice chunk built above is already in dist/.
      emptyOutDir: false,
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
  }),
)
