import { type OutputUnit, type Schema, Validator } from '@cfworker/json-schema'
import draft07 from 'ajv/dist/refs/json-schema-draft-07.json' with { type: 'json' }
import { t } from '../../i18n.tsx'

/**
 * The studio's as-you-type checks of JSON typed into a field: its syntax (with line and column),
 * an object schema as the server takes it (a custom function's `parameters`, an agent's
 * `analysisSchema`: the server's own rules, then the JSON Schema draft-07 meta-schema, the draft
 * the server's ajv uses), and sample arguments against a function's parameters. Loaded only when
 * a JSON field is shown (`import()`): @cfworker/json-schema interprets schemas instead of
 * compiling them to code, so it runs under the studio's CSP (no eval), unlike ajv.
 */

export type JsonRead = { ok: true; value: unknown } | { ok: false; problem: string }

const positionOf = (message: string) => Number(message.match(/at position (\d+)/)?.[1] ?? Number.NaN)

/** JSON.parse, its error told as line and column (counted from 1) with the engine's own words. */
export const readJson = (text: string): JsonRead => {
  try {
    return { ok: true, value: JSON.parse(text) as unknown }
  } catch (error) {
    const message = (error as Error).message
    const position = positionOf(message)
    const before = text.slice(0, Number.isNaN(position) ? text.length : position).split('\n')
    const problem = message
      .replace(/\s*\(line \d+ column \d+\)/, '')
      .replace(/\s*in JSON at position \d+/, '')
      .replace(/^JSON\.parse: /, '')
    return {
      ok: false,
      problem: t('Line {line}, column {column}: {problem}', {
        line: before.length,
        column: (before.at(-1)?.length ?? 0) + 1,
        problem,
      }),
    }
  }
}

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value)

/** The property types the spec allows (the server's allowedPropertyTypes). */
const propertyTypes = ['string', 'number', 'boolean', 'array', 'object'] as const
const fitsType = (type: string, value: unknown) =>
  type === 'array' ? Array.isArray(value) : type === 'object' ? isPlainObject(value) : typeof value === type

const checkProperty = (path: string, property: unknown): string[] => {
  if (!isPlainObject(property)) return [t('{path} must be an object with a type', { path })]
  const type = property.type
  if (typeof type !== 'string' || !(propertyTypes as readonly string[]).includes(type))
    return [t('{path}.type must be one of {types}', { path, types: propertyTypes.join(', ') })]
  const problems: string[] = []
  if ('default' in property && !fitsType(type, property.default))
    problems.push(t('{path}.default must be a {type}', { path, type }))
  if (type === 'object' && isPlainObject(property.properties))
    for (const [name, nested] of Object.entries(property.properties))
      problems.push(...checkProperty(`${path}.properties.${name}`, nested))
  if (type === 'array' && property.items !== undefined)
    problems.push(...checkProperty(`${path}.items`, property.items))
  return problems
}

/** The library's words for the leaves of what failed; "a subschema had errors" says nothing. */
const wrappers = new Set(['properties', 'additionalProperties', '$ref', 'allOf', 'anyOf', 'oneOf', 'items'])
const describeUnits = (units: OutputUnit[], root: string) => [
  ...new Set(
    units
      .filter((unit) => !wrappers.has(unit.keyword))
      .map((unit) => `${root}${unit.instanceLocation.slice(1).replaceAll('/', '.')}: ${unit.error}`),
  ),
]

const metaSchema = new Validator(draft07 as Schema, '7', false)

/** What is wrong with `value` as an object schema named `root`; empty when the server would take it. */
export const checkObjectSchema = (value: unknown, root: string): string[] => {
  if (!isPlainObject(value)) return [t('{path} must be a JSON Schema object', { path: root })]
  const problems: string[] = []
  if (value.type !== 'object') problems.push(t("{path}.type must be 'object'", { path: root }))
  if (!isPlainObject(value.properties)) {
    problems.push(t('{path}.properties must be an object', { path: root }))
  } else {
    for (const [name, property] of Object.entries(value.properties))
      problems.push(...checkProperty(`${root}.properties.${name}`, property))
    if (Array.isArray(value.required))
      for (const name of value.required)
        if (typeof name === 'string' && !(name in value.properties))
          problems.push(t('{path}.required names "{name}", which is not a property', { path: root, name }))
  }
  if (problems.length > 0) return problems
  return describeUnits(metaSchema.validate(value).errors, root)
}

/** The text of a schema field: JSON first, then the schema rules. An empty optional field is fine. */
export const checkSchemaText = (text: string, root: string, { optional = false } = {}) => {
  if (optional && text.trim() === '') return []
  const read = readJson(text)
  return read.ok ? checkObjectSchema(read.value, root) : [read.problem]
}

/** The text of sample arguments: a JSON object that `schema` (a function's parameters) accepts. */
export const checkArgumentsText = (text: string, schema: unknown) => {
  const read = readJson(text)
  if (!read.ok) return [read.problem]
  if (!isPlainObject(read.value)) return [t('The arguments must be a JSON object')]
  if (!isPlainObject(schema)) return []
  return describeUnits(new Validator(schema as Schema, '7', false).validate(read.value).errors, 'arguments')
}
