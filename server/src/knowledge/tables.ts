import type { ColumnType, Generated } from 'kysely'

type Timestamp = ColumnType<Date, Date | string | undefined, Date | string>
type BigIntCount = ColumnType<string | number, number | undefined, number>

/** The knowledge area's tables (migration 0035), kept beside the area rather than in db/schema.ts. */
export type KnowledgeTables = {
  knowledge_sources: {
    id: string
    organization_id: string
    kind: 'text' | 'url' | 'site' | 'file'
    title: string
    url: string | null
    file_type: string | null
    language: string
    refresh: Generated<'off' | 'daily' | 'weekly'>
    options: ColumnType<SourceOptions, string | undefined, string>
    status: 'queued' | 'fetching' | 'indexing' | 'ready' | 'failed'
    pages_found: Generated<number>
    pages_done: Generated<number>
    chunk_count: Generated<number>
    bytes: BigIntCount
    error: string | null
    upload: Buffer | null
    created_at: Timestamp
    updated_at: Timestamp
    fetched_at: Timestamp | null
    next_fetch_at: Timestamp | null
  }
  knowledge_pages: {
    id: string
    source_id: string
    url: string
    title: string | null
    etag: string | null
    content_hash: string | null
    error: string | null
    fetched_at: Timestamp
  }
  knowledge_chunks: {
    id: Generated<number>
    organization_id: string
    source_id: string
    page_id: string | null
    seq: number
    title: string
    url: string | null
    page_number: number | null
    content: string
    language: string
    tsv: ColumnType<string, unknown, unknown>
  }
}

export type SourceOptions = { maxPages?: number; maxDepth?: number }
