/** The hashed file name of the voice chunk, set by vite.config.ts after building it. */
declare const __PARLEY_VOICE_CHUNK__: string
/** The hashed file name of the Urdu and Sindhi words (i18n-rtl.ts), set by vite.config.ts. */
declare const __PARLEY_LANG_CHUNK__: string

declare module '*.css?inline' {
  const css: string
  export default css
}
/** The hashed file name of the panel chunk (panel-chunk.ts), set by vite.config.ts. */
declare const __PARLEY_PANEL_CHUNK__: string
