import { OpenAPIRegistry, OpenApiGeneratorV31 } from '@asteasolutions/zod-to-openapi'
import { chatStreamEventData, ZBatchProgressEvent } from '@parley/shared'
import { z } from 'zod'
import { securitySchemes, tightenDocument } from './contract.ts'
import { addExamples } from './examples.ts'

/** The JSON Schema of each chat stream event's data, from the shared zod schemas. */
const chatEvents = () =>
  Object.fromEntries(
    Object.entries(chatStreamEventData).map(([name, schema]) => {
      const { $schema: _, ...json } = z.toJSONSchema(schema) as Record<string, unknown>
      return [name, json]
    }),
  )

export const createRegistry = () => {
  const registry = new OpenAPIRegistry()
  for (const [name, scheme] of Object.entries(securitySchemes))
    registry.registerComponent('securitySchemes', name, scheme as never)
  return registry
}

/**
 * The OpenAPI 3.1 document of every route registered so far, every leaf of its schemas with a
 * realistic example (examples.ts).
 */
export const generateDocument = (registry: OpenAPIRegistry, { serverUrl }: { serverUrl: string }) => {
  const document = new OpenApiGeneratorV31([
    ...registry.definitions,
    // Referenced by the batch progress stream's events (contract.ts), not by a route's body.
    { type: 'schema', schema: ZBatchProgressEvent },
  ]).generateDocument({
    openapi: '3.1.0',
    info: {
      title: 'Parley API',
      version: '1.0.0',
      description:
        'Agents, text chat (REST + Server-Sent Events), voice sessions, custom functions, batch calling and API keys.',
    },
    servers: [{ url: serverUrl }],
  })
  tightenDocument(document as never, { chatEvents: chatEvents() })
  addExamples(document as unknown as Parameters<typeof addExamples>[0])
  return document
}
