/**
 * The panel chunk's Preact, hooks and signals: the first load's own copies, handed over by
 * `provide` when the chunk arrives. vite.config.ts resolves the chunk's imports of `preact`,
 * `preact/hooks` and `@preact/signals` to this module, so the chunk carries no second Preact (a
 * second copy would not share the first one's renderer, hooks state or signal tracking). A name
 * missing here fails the chunk's build, never a visitor's page.
 */

import type * as Signals from '@preact/signals'
import type * as Preact from 'preact'
import type * as Hooks from 'preact/hooks'

/** What the first load hands over; every export below is one of these. */
export type SharedRuntime = {
  h: typeof Preact.h
  Fragment: typeof Preact.Fragment
  useEffect: typeof Hooks.useEffect
  useLayoutEffect: typeof Hooks.useLayoutEffect
  useRef: typeof Hooks.useRef
  useState: typeof Hooks.useState
  useSignal: typeof Signals.useSignal
}

// h and Fragment under other local names: the build injects `import { h, Fragment }` into every file.
let sharedH: SharedRuntime['h']
let SharedFragment: SharedRuntime['Fragment']

export { SharedFragment as Fragment, sharedH as h }
export let useEffect: SharedRuntime['useEffect']
export let useLayoutEffect: SharedRuntime['useLayoutEffect']
export let useRef: SharedRuntime['useRef']
export let useState: SharedRuntime['useState']
export let useSignal: SharedRuntime['useSignal']

/** Called once, before the chunk's first render. */
export const provide = (runtime: SharedRuntime) => {
  ;({
    h: sharedH,
    Fragment: SharedFragment,
    useEffect,
    useLayoutEffect,
    useRef,
    useState,
    useSignal,
  } = runtime)
}
