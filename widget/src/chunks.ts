import { useSignal } from '@preact/signals'
// A namespace import: the build injects `import { h, Fragment } from 'preact'` into every file.
import * as preact from 'preact'
import { useEffect, useLayoutEffect, useRef, useState } from 'preact/hooks'

/**
 * The lazily loaded chunks (panel, voice, Urdu and Sindhi words) sit beside the script that loaded
 * the widget: their hashed names belong to that build, whatever API `base-url` names. Without a
 * script URL (parley.mjs imported as a module) they come from the API host's `/widget/`.
 */
let directory: string | null = null

export const setChunkDirectory = (scriptUrl: string) => {
  // A script from a blob: or data: URL has no directory to resolve against.
  if (/^https?:/i.test(scriptUrl)) directory = new URL('.', scriptUrl).href
}

const failures = new Map<string, number>()

export const importChunk = async <Chunk>(file: string, baseUrl: string): Promise<Chunk> => {
  const failed = failures.get(file) ?? 0
  // A browser keeps a failed module fetch in its module map for the page's life: a retry needs a
  // URL of its own (the query changes nothing on the server).
  const url = `${directory ?? `${baseUrl.replace(/\/$/, '')}/widget/`}${file}${failed ? `?retry=${failed}` : ''}`
  try {
    return await import(/* @vite-ignore */ url)
  } catch (error) {
    failures.set(file, failed + 1)
    throw error
  }
}

/** The panel chunk's exports (panel-chunk.ts), with its styles as one sheet for every widget. */
export type PanelChunk = Pick<typeof import('./panel-chunk.ts'), 'Panel' | 'fetchEventSource'> & {
  sheet: CSSStyleSheet
}

let panel: Promise<PanelChunk> | undefined

/** Fetches the panel chunk once per page; a failed fetch is tried again on the next call. */
export const loadPanel = (baseUrl: string) =>
  (panel ??= importChunk<typeof import('./panel-chunk.ts')>(__PARLEY_PANEL_CHUNK__, baseUrl).then(
    ({ provide, css, Panel, fetchEventSource }) => {
      provide({
        h: preact.h,
        Fragment: preact.Fragment,
        useEffect,
        useLayoutEffect,
        useRef,
        useState,
        useSignal,
      })
      const sheet = new CSSStyleSheet()
      sheet.replaceSync(css)
      return { Panel, fetchEventSource, sheet }
    },
    (error: unknown) => {
      panel = undefined
      throw error
    },
  ))

/**
 * At the browser's first idle moment after the bubble shows (at most 2 s later; Safari, which has no
 * requestIdleCallback, after a second): the panel then opens at once when clicked. The page's own
 * `load` is not awaited: a heavy page would keep the panel away from a visitor who clicks meanwhile.
 */
export const whenIdle = (run: () => void) =>
  typeof requestIdleCallback === 'function'
    ? requestIdleCallback(run, { timeout: 2000 })
    : setTimeout(run, 1000)
