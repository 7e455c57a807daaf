import type { AppContext } from '../context.ts'
import type { FoundChunk } from './store.ts'

export type VectorSearchInput = {
  organizationId: string
  sourceIds: string[] | null
  query: string
  limit: number
}

/** What vectors add once enabled for a server (vectors.ts): embedding after indexing, and search. */
export type VectorHooks = {
  embedSource: (sourceId: string) => Promise<void>
  search: (input: VectorSearchInput) => Promise<FoundChunk[] | null>
}

// Per server (AppContext): test files run several servers in one process, some with vectors.
const hooks = new WeakMap<AppContext, VectorHooks>()

export const setVectorHooks = (ctx: AppContext, value: VectorHooks) => hooks.set(ctx, value)
export const vectorHooksOf = (ctx: AppContext) => hooks.get(ctx) ?? null
