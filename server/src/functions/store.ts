import { type Selectable, sql } from 'kysely'
import { type Database, type Executor, isUniqueViolation } from '../db/index.ts'

export type FunctionMethod = 'GET' | 'POST' | 'PUT' | 'PATCH'

export type CustomFunctionRow = {
  id: string
  organizationId: string
  agentId: string
  name: string
  label: string
  description: string
  endpoint: string
  method: FunctionMethod
  headersBox: string
  parameters: Record<string, unknown>
  createdAt: Date
  updatedAt: Date
}

export type CustomFunctionFields = Pick<
  CustomFunctionRow,
  'name' | 'label' | 'description' | 'endpoint' | 'method' | 'headersBox' | 'parameters'
>

const toRow = (row: Selectable<Database['custom_functions']>): CustomFunctionRow => ({
  id: row.id,
  organizationId: row.organization_id,
  agentId: row.agent_id,
  name: row.name,
  label: row.label,
  description: row.description,
  endpoint: row.endpoint,
  method: row.method,
  headersBox: row.headers_box,
  parameters: row.parameters,
  createdAt: row.created_at,
  updatedAt: row.updated_at,
})

/** Returns null when the agent already has a function of that name. */
export const insertFunction = async (
  db: Executor,
  fn: CustomFunctionFields & { id: string; organizationId: string; agentId: string },
): Promise<CustomFunctionRow | null> => {
  try {
    const row = await db
      .insertInto('custom_functions')
      .values({
        id: fn.id,
        organization_id: fn.organizationId,
        agent_id: fn.agentId,
        name: fn.name,
        label: fn.label,
        description: fn.description,
        endpoint: fn.endpoint,
        method: fn.method,
        headers_box: fn.headersBox,
        parameters: JSON.stringify(fn.parameters),
      })
      .returningAll()
      .executeTakeFirstOrThrow()
    return toRow(row)
  } catch (error) {
    if (isUniqueViolation(error)) return null
    throw error
  }
}

/** Returns null when the new name collides with another function of the agent. */
export const updateFunction = async (
  db: Executor,
  { id, fields }: { id: string; fields: Partial<CustomFunctionFields> },
): Promise<CustomFunctionRow | null> => {
  const { parameters, headersBox, ...rest } = fields
  try {
    const row = await db
      .updateTable('custom_functions')
      .set({
        ...rest,
        ...(headersBox !== undefined ? { headers_box: headersBox } : {}),
        ...(parameters !== undefined ? { parameters: JSON.stringify(parameters) } : {}),
        updated_at: sql`now()`,
      })
      .where('id', '=', id)
      .returningAll()
      .executeTakeFirstOrThrow()
    return toRow(row)
  } catch (error) {
    if (isUniqueViolation(error)) return null
    throw error
  }
}

export const findFunction = async (
  db: Executor,
  { organizationId, id }: { organizationId: string; id: string },
) => {
  const row = await db
    .selectFrom('custom_functions')
    .selectAll()
    .where('organization_id', '=', organizationId)
    .where('id', '=', id)
    .executeTakeFirst()
  return row ? toRow(row) : undefined
}

export const listFunctionsOfAgents = async (db: Executor, agentIds: string[]) => {
  if (agentIds.length === 0) return []
  const rows = await db
    .selectFrom('custom_functions')
    .selectAll()
    .where('agent_id', 'in', agentIds)
    .orderBy('created_at')
    .orderBy('id')
    .execute()
  return rows.map(toRow)
}

export const deleteFunction = async (db: Executor, id: string) => {
  await db.deleteFrom('custom_functions').where('id', '=', id).execute()
}

export const listFunctionIds = async (db: Executor, agentId: string) =>
  (await db.selectFrom('custom_functions').select('id').where('agent_id', '=', agentId).execute()).map(
    (row) => row.id,
  )
