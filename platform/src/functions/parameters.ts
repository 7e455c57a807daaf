import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv'

/**
 * The `parameters` of a custom function: a JSON Schema object whose properties are typed as the
 * spec allows. Customer schemas are checked and compiled with ajv (strict mode off, since customers
 * may carry annotations ajv does not know, such as `example`).
 */

export const allowedPropertyTypes = ['string', 'number', 'boolean', 'array', 'object'] as const

// useDefaults: a property's `default` fills an argument the model left out, as the schema promises.
const ajv = new Ajv({ allErrors: true, strict: false, useDefaults: true })

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value)

const typeValidators = new Map(allowedPropertyTypes.map((type) => [type, ajv.compile({ type })]))

const checkProperty = ({ path, property }: { path: string; property: unknown }): string[] => {
  if (!isPlainObject(property)) return [`${path} must be an object with a type`]
  const type = property.type
  const validateType = typeof type === 'string' ? typeValidators.get(type as never) : undefined
  if (!validateType) return [`${path}.type must be one of ${allowedPropertyTypes.join(', ')}`]
  const problems: string[] = []
  if ('default' in property && !validateType(property.default))
    problems.push(`${path}.default must be a ${type}`)
  if (type === 'object' && isPlainObject(property.properties)) {
    for (const [name, nested] of Object.entries(property.properties)) {
      problems.push(...checkProperty({ path: `${path}.properties.${name}`, property: nested }))
    }
  }
  if (type === 'array' && property.items !== undefined) {
    problems.push(...checkProperty({ path: `${path}.items`, property: property.items }))
  }
  return problems
}

const describeErrors = (errors: ErrorObject[] | null | undefined, root: string) => [
  ...new Set(
    (errors ?? []).map(
      (error) => `${root}${error.instancePath.replaceAll('/', '.')} ${error.message ?? 'is invalid'}`,
    ),
  ),
]

/**
 * Checks an object schema at save time (a custom function's `parameters`, an agent's
 * `analysisSchema`): `{type: 'object', properties, required?}` with property types limited to the
 * spec's five, valid against the JSON Schema meta-schema, and compilable. Returns readable
 * problems, each starting with `root`; an empty list means the schema is fine.
 */
export const validateObjectSchema = (schema: unknown, root: string): string[] => {
  if (!isPlainObject(schema)) return [`${root} must be a JSON Schema object`]
  const problems: string[] = []
  if (schema.type !== 'object') problems.push(`${root}.type must be 'object'`)
  if (!isPlainObject(schema.properties)) {
    problems.push(`${root}.properties must be an object`)
  } else {
    for (const [name, property] of Object.entries(schema.properties)) {
      problems.push(...checkProperty({ path: `${root}.properties.${name}`, property }))
    }
    if (Array.isArray(schema.required)) {
      const properties = schema.properties
      for (const name of schema.required) {
        if (typeof name === 'string' && !(name in properties)) {
          problems.push(`${root}.required names "${name}", which is not a property`)
        }
      }
    }
  }
  if (problems.length > 0) return problems
  if (!ajv.validateSchema(schema)) return describeErrors(ajv.errors, root)
  try {
    compileArgumentsValidator(schema)
  } catch (error) {
    return [`${root} cannot be compiled: ${(error as Error).message}`]
  }
  return []
}

export const validateFunctionParameters = (schema: unknown) => validateObjectSchema(schema, 'parameters')

// By schema identity: a function's parameters object is compiled once while it is held.
const compiled = new WeakMap<object, ValidateFunction>()

const compileArgumentsValidator = (schema: Record<string, unknown>) => {
  const cached = compiled.get(schema)
  if (cached) return cached
  const validate = ajv.compile(schema)
  // ajv keeps every compiled schema in its own cache (and refuses a second schema with the same
  // $id); the WeakMap is the cache here, so ajv's entry goes and an unused schema can be collected.
  ajv.removeSchema(schema)
  compiled.set(schema, validate)
  return validate
}

export type ArgumentsCheck = { ok: true; args: Record<string, unknown> } | { ok: false; error: string }

/** Validates the model's arguments against `parameters`, defaults applied to a copy. */
export const checkArguments = ({
  schema,
  args,
  dataVar = 'arguments',
}: {
  schema: unknown
  args: unknown
  dataVar?: string
}): ArgumentsCheck => {
  if (!isPlainObject(schema)) return { ok: false, error: 'The function has no valid parameters schema' }
  if (!isPlainObject(args)) return { ok: false, error: 'Invalid arguments: arguments must be a JSON object' }
  let validate: ValidateFunction
  try {
    validate = compileArgumentsValidator(schema)
  } catch {
    return { ok: false, error: 'The function has no valid parameters schema' }
  }
  const copy = structuredClone(args)
  if (!validate(copy)) {
    return {
      ok: false,
      error: `Invalid ${dataVar}: ${ajv.errorsText(validate.errors, { dataVar, separator: '; ' })}`,
    }
  }
  return { ok: true, args: copy }
}
