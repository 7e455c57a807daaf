import { describe, expect, it } from 'vitest'
import { validateFunctionParameters } from './invoker.ts'
import { checkArguments } from './parameters.ts'

describe('validateFunctionParameters', () => {
  it('accepts the spec shape with every allowed property type, descriptions and defaults', () => {
    expect(
      validateFunctionParameters({
        type: 'object',
        properties: {
          city: { type: 'string', description: 'City name', default: 'Karachi' },
          days: { type: 'number', default: 3, minimum: 1 },
          metric: { type: 'boolean', default: true },
          tags: { type: 'array', items: { type: 'string' }, default: [] },
          filter: { type: 'object', properties: { min: { type: 'number' } }, default: {} },
        },
        required: ['city'],
      }),
    ).toEqual([])
    expect(validateFunctionParameters({ type: 'object', properties: {} })).toEqual([])
  })

  it.each([
    [null, 'parameters must be a JSON Schema object'],
    [[], 'parameters must be a JSON Schema object'],
    [{ type: 'array', properties: {} }, "parameters.type must be 'object'"],
    [{ type: 'object' }, 'parameters.properties must be an object'],
    [
      { type: 'object', properties: { n: { type: 'integer' } } },
      'parameters.properties.n.type must be one of string, number, boolean, array, object',
    ],
    [
      { type: 'object', properties: { n: { type: ['string', 'null'] } } },
      'parameters.properties.n.type must be one of string, number, boolean, array, object',
    ],
    [
      { type: 'object', properties: { n: 'string' } },
      'parameters.properties.n must be an object with a type',
    ],
    [
      { type: 'object', properties: { n: { type: 'array', items: { type: 'null' } } } },
      'parameters.properties.n.items.type must be one of string, number, boolean, array, object',
    ],
    [
      { type: 'object', properties: { n: { type: 'number', default: 'three' } } },
      'parameters.properties.n.default must be a number',
    ],
    [
      { type: 'object', properties: { a: { type: 'string' } }, required: ['b'] },
      'parameters.required names "b", which is not a property',
    ],
    [{ type: 'object', properties: {}, required: 'a' }, 'parameters.required must be array'],
    [
      { type: 'object', properties: { a: { type: 'string', minLength: -1 } } },
      'parameters.properties.a.minLength must be >= 0',
    ],
  ])('refuses %j', (schema, problem) => {
    expect(validateFunctionParameters(schema)).toContain(problem)
  })

  it('refuses a schema that cannot be compiled', () => {
    const problems = validateFunctionParameters({
      type: 'object',
      properties: { a: { type: 'string', $ref: '#/definitions/missing' } },
    })
    expect(problems).toHaveLength(1)
    expect(problems[0]).toMatch(/^parameters cannot be compiled/)
  })
})

describe('checkArguments', () => {
  it('applies defaults to a copy, leaving the model’s arguments untouched', () => {
    const args = { city: 'Karachi' }
    const schema = {
      type: 'object',
      properties: { city: { type: 'string' }, days: { type: 'number', default: 3 } },
    }
    expect(checkArguments({ schema, args })).toEqual({ ok: true, args: { city: 'Karachi', days: 3 } })
    expect(args).toEqual({ city: 'Karachi' })
  })

  it('compiles two functions whose schemas share an $id', () => {
    const schemaWith = (type: string) => ({ $id: 'weather', type: 'object', properties: { city: { type } } })
    expect(checkArguments({ schema: schemaWith('string'), args: { city: 'x' } })).toMatchObject({ ok: true })
    expect(checkArguments({ schema: schemaWith('number'), args: { city: 1 } })).toMatchObject({ ok: true })
  })
})
