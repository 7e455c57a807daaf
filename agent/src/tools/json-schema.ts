import type { llm } from '@livekit/agents'

/** What the framework's tool() takes as `parameters`: zod, or a plain JSON Schema. */
type ToolParameters = NonNullable<Parameters<typeof llm.tool>[0]['parameters']>

/**
 * Stored parameter schemas are JSON Schema objects the server checked when they were saved
 * (`{type: 'object', properties, required?}`); the framework types plain schemas as JSONSchema7.
 */
export const asToolParameters = (schema: Record<string, unknown>) => schema as ToolParameters
