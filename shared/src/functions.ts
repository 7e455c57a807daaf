import { z } from 'zod'
import { ZIsoDateTime } from './common.ts'

export const functionMethods = ['GET', 'POST', 'PUT', 'PATCH'] as const
/** Custom functions per agent; the spec leaves the bound unshown. */
export const MAX_FUNCTIONS_PER_AGENT = 20

const ZHeaders = z
  .record(
    z.string().regex(/^[A-Za-z0-9!#$%&'*+.^_`|~-]{1,100}$/, 'header names must be HTTP tokens'),
    z.string().max(2000, 'header values must be at most 2000 characters'),
  )
  .refine((headers) => Object.keys(headers).length <= 20, 'at most 20 headers')

const fields = {
  name: z
    .string({ message: 'name is required' })
    .regex(
      /^[a-z][a-z0-9_]{0,63}$/,
      'name must be snake_case (a-z, 0-9, _; starting with a letter; at most 64)',
    ),
  label: z.string({ message: 'label is required' }).trim().min(1, 'label is required').max(100),
  description: z.string().max(1000),
  endpoint: z.url({ message: 'endpoint must be an https URL' }).max(2000),
  method: z.enum(functionMethods, { message: 'method must be GET, POST, PUT or PATCH' }),
  headers: ZHeaders,
  parameters: z.record(z.string(), z.unknown()).meta({
    description:
      'JSON Schema: {type: "object", properties, required}; property types string, number, boolean, array, object',
  }),
}

export const ZCreateFunction = z
  .object({
    ...fields,
    description: fields.description.default(''),
    method: fields.method.default('POST'),
    headers: fields.headers.default({}),
    parameters: fields.parameters.default({ type: 'object', properties: {} }),
  })
  .meta({ id: 'CreateCustomFunctionRequest' })
export type CreateFunction = z.infer<typeof ZCreateFunction>

export const ZUpdateFunction = z
  .object({ id: z.string({ message: 'id is required' }).min(1, 'id is required'), ...fields })
  .partial()
  .required({ id: true })
  .meta({ id: 'UpdateCustomFunctionRequest' })
export type UpdateFunction = z.infer<typeof ZUpdateFunction>

export const ZCustomFunction = z
  .object({
    id: z.string(),
    name: z.string(),
    label: z.string(),
    description: z.string(),
    endpoint: z.string(),
    method: z.enum(functionMethods),
    headers: z
      .record(z.string(), z.string())
      .meta({ description: 'Values are masked: only their last 4 characters show' }),
    parameters: z.record(z.string(), z.unknown()),
    agentId: z.string(),
    createdAt: ZIsoDateTime,
    updatedAt: ZIsoDateTime,
  })
  .meta({ id: 'CustomFunction' })
export type CustomFunction = z.infer<typeof ZCustomFunction>

const ZFunctionAgent = z.object({ id: z.string(), name: z.string(), organizationId: z.string() })

export const ZFunctionsQuery = z
  .object({ agentId: z.string().min(1).optional(), organizationId: z.string().min(1).optional() })
  .refine((query) => !(query.agentId && query.organizationId), 'give agentId or organizationId, not both')

export const ZFunctionList = z
  .object({
    functions: z.array(
      z.union([
        ZCustomFunction,
        z.object({
          id: z.string(),
          name: z.string(),
          label: z.string(),
          endpoint: z.string(),
          agent: ZFunctionAgent,
        }),
        z.object({ id: z.string(), name: z.string(), agent: ZFunctionAgent }),
      ]),
    ),
    role: z.enum(['owner', 'admin', 'member']).optional(),
  })
  .meta({
    id: 'CustomFunctionList',
    description: 'Shape by query: agentId → full; none → with agent; organizationId → brief + role',
  })

export const ZFunctionAgentParams = z.object({ agentId: z.string().min(1) })
export const ZDeleteFunctionQuery = z.object({
  functionId: z.string({ message: 'functionId is required' }).min(1),
})
export const ZDeleted = z.object({ success: z.literal(true) }).meta({ id: 'Deleted' })

/** Test calls an organization may make per minute (each is a real request to the customer's endpoint). */
export const FUNCTION_TESTS_PER_MINUTE = 20
/** A test call answers at most this many characters of the endpoint's body. */
export const FUNCTION_TEST_BODY_MAX_CHARS = 4000

export const ZFunctionTestParams = z.object({
  agentId: z.string().min(1).max(100),
  functionId: z.string().min(1).max(100),
})

export const ZFunctionTestRequest = z
  .object({
    arguments: z
      .record(z.string(), z.unknown(), { message: 'arguments must be a JSON object' })
      .default({})
      .meta({
        description: "Sample arguments, checked against the function's parameters before any request",
        example: { orderNumber: 'A17' },
      }),
  })
  .meta({ id: 'CustomFunctionTestRequest' })
export type FunctionTestRequest = z.infer<typeof ZFunctionTestRequest>

export const ZFunctionTestResult = z
  .object({
    ok: z.boolean().meta({ description: 'Whether the model would have been given JSON', example: true }),
    status: z
      .number()
      .int()
      .nullable()
      .meta({ description: "The endpoint's HTTP status; null when no answer came", example: 200 }),
    durationMs: z
      .number()
      .int()
      .nonnegative()
      .meta({ description: 'From the start of the call to the last byte or the failure', example: 182 }),
    body: z
      .string()
      .nullable()
      .meta({
        description: `The endpoint's body as text, at most ${FUNCTION_TEST_BODY_MAX_CHARS} characters; null when none came`,
        example: '{"status":"shipped","eta":"tomorrow"}',
      }),
    truncated: z
      .boolean()
      .meta({ description: 'Whether the body was longer than what is shown', example: false }),
    error: z.string().nullable().meta({
      description: 'What went wrong, in the words the model would have been given; null when ok',
      example: 'The function endpoint answered HTTP 404: {"error":"no such order"}',
    }),
  })
  .meta({ id: 'CustomFunctionTestResult' })
export type FunctionTestResult = z.infer<typeof ZFunctionTestResult>
