import { sql } from 'kysely'
import type { AppContext } from '../context.ts'
import { embedTexts, resolveEmbeddingEndpoint } from '../providers/embeddings.ts'
import { type FoundChunkRow, foundChunkOf } from './store.ts'
import { setVectorHooks } from './vector-hooks.ts'

const EMBED_BATCH = 64

const literal = (vector: number[]) => `[${vector.join(',')}]`

/**
 * The source's chunks that have no vector yet get one, a batch a request, through its
 * organization's embedding endpoint (its own key when it has one). Without one, none.
 */
const embedSource = async (ctx: AppContext, sourceId: string) => {
  const { rows: owners } = await sql<{ organization_id: string }>`
    select organization_id from knowledge_sources where id = ${sourceId}`.execute(ctx.db)
  const owner = owners[0]
  const endpoint = owner ? await resolveEmbeddingEndpoint(ctx, owner.organization_id) : null
  if (!endpoint) return
  for (;;) {
    const { rows } = await sql<{ id: number; organization_id: string; title: string; content: string }>`
      select c.id, c.organization_id, c.title, c.content from knowledge_chunks c
      left join knowledge_embeddings e on e.chunk_id = c.id
      where c.source_id = ${sourceId} and e.chunk_id is null
      order by c.id limit ${EMBED_BATCH}`.execute(ctx.db)
    if (rows.length === 0) return
    const vectors = await embedTexts(
      endpoint,
      rows.map((row) => `${row.title}\n\n${row.content}`),
    )
    const values = rows.map(
      (row, index) =>
        sql`(${row.id}, ${row.organization_id}, ${sourceId}, ${literal(vectors[index] ?? [])}::vector)`,
    )
    await sql`insert into knowledge_embeddings (chunk_id, organization_id, source_id, embedding)
      values ${sql.join(values)} on conflict (chunk_id) do nothing`.execute(ctx.db)
  }
}

/**
 * With an embedding model configured: pgvector enabled (said once in the log when the database
 * has no `vector` extension, and search stays full-text), the vectors' table made for the model's
 * size, new chunks embedded after indexing, and search made hybrid.
 */
export const startVectors = async (ctx: AppContext) => {
  const { embeddings } = ctx.config.knowledge
  if (!embeddings) return false
  try {
    await sql`create extension if not exists vector`.execute(ctx.db)
  } catch (error) {
    ctx.logger.warn(
      { reason: error instanceof Error ? error.message : String(error) },
      'knowledge: the database has no pgvector ("vector") extension; search uses full-text only',
    )
    return false
  }
  // Its size follows EMBEDDINGS_DIMENSIONS, so it is made here rather than by a migration.
  await sql`create table if not exists knowledge_embeddings (
      chunk_id bigint primary key references knowledge_chunks(id) on delete cascade,
      organization_id text not null,
      source_id text not null,
      embedding vector(${sql.raw(String(embeddings.dimensions))}) not null)`.execute(ctx.db)
  await sql`create index if not exists knowledge_embeddings_hnsw_idx on knowledge_embeddings
      using hnsw (embedding vector_cosine_ops)`.execute(ctx.db)
  setVectorHooks(ctx, {
    embedSource: (sourceId) => embedSource(ctx, sourceId),
    search: async ({ organizationId, sourceIds, query, limit }) => {
      const endpoint = await resolveEmbeddingEndpoint(ctx, organizationId)
      if (!endpoint) return null
      const [vector] = await embedTexts(endpoint, [query], 'query')
      if (!vector) return null
      const { rows } = await sql<FoundChunkRow>`
      select c.id, c.source_id, c.title, c.url, c.page_number, c.content,
        (1 - (e.embedding <=> ${literal(vector)}::vector))::float8 as score
      from knowledge_embeddings e join knowledge_chunks c on c.id = e.chunk_id
      where e.organization_id = ${organizationId}
        ${sourceIds ? (sourceIds.length ? sql`and e.source_id in (${sql.join(sourceIds)})` : sql`and false`) : sql``}
      order by e.embedding <=> ${literal(vector)}::vector
      limit ${limit}`.execute(ctx.db)
      return rows.map(foundChunkOf)
    },
  })
  return true
}
