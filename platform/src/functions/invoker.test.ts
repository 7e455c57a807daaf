import { afterEach, describe, expect, it } from 'vitest'
import { type HttpTarget, respondJson, startHttpTarget } from '../../../server/test/helpers/http-target.ts'
import {
  FUNCTION_MAX_RESPONSE_BYTES,
  FUNCTION_TIMEOUT_MS,
  type InvokableFunction,
  invokeFunction,
} from './invoker.ts'

const targets: HttpTarget[] = []
afterEach(async () => {
  await Promise.all(targets.splice(0).map((target) => target.close()))
})

/** A customer endpoint on loopback; each request's path picks its behaviour. */
const startEndpoint = async () => {
  const target = await startHttpTarget((request, response) => {
    const path = request.url.split('?')[0]
    if (path === '/text') return response.end('plain words')
    if (path === '/fail') return respondJson(response, 500, { error: 'database down' })
    if (path === '/hang') return
    if (path === '/huge') return response.end('x'.repeat(FUNCTION_MAX_RESPONSE_BYTES + 1))
    respondJson(response, 200, { received: true })
  })
  targets.push(target)
  return target
}

const weatherParameters = {
  type: 'object',
  properties: {
    city: { type: 'string', description: 'City name' },
    days: { type: 'number', default: 3 },
    metric: { type: 'boolean' },
    tags: { type: 'array', items: { type: 'string' } },
    filter: { type: 'object', properties: { min: { type: 'number' } } },
  },
  required: ['city'],
}

const functionAt = (target: HttpTarget, fn: Partial<InvokableFunction> & { path?: string } = {}) => ({
  endpoint: `${target.origin}${fn.path ?? '/fn'}`,
  method: fn.method ?? 'POST',
  headers: fn.headers ?? {},
  parameters: fn.parameters ?? weatherParameters,
})

describe('invokeFunction', () => {
  it('POSTs the arguments as a JSON body, defaults applied, with the custom headers', async () => {
    const target = await startEndpoint()
    const result = await invokeFunction({
      fn: functionAt(target, { headers: { 'X-Api-Key': 'customer-secret', Authorization: 'Bearer abc' } }),
      args: { city: 'Karachi', tags: ['hot'] },
      allowHosts: [target.hostAndPort],
    })
    expect(result).toEqual({ ok: true, status: 200, json: { received: true } })
    const [request] = target.received
    expect(request?.method).toBe('POST')
    expect(JSON.parse(request?.body ?? '')).toEqual({ city: 'Karachi', tags: ['hot'], days: 3 })
    expect(request?.headers).toMatchObject({
      'content-type': 'application/json',
      'x-api-key': 'customer-secret',
      authorization: 'Bearer abc',
    })
  })

  it.each(['PUT', 'PATCH'] as const)('sends %s with a JSON body', async (method) => {
    const target = await startEndpoint()
    const result = await invokeFunction({
      fn: functionAt(target, { method }),
      args: { city: 'Lahore' },
      allowHosts: [target.hostAndPort],
    })
    expect(result.ok).toBe(true)
    expect(target.received[0]).toMatchObject({ method, body: '{"city":"Lahore","days":3}' })
  })

  it('puts GET arguments in the query string, JSON-encoding all but strings', async () => {
    const target = await startEndpoint()
    const result = await invokeFunction({
      fn: functionAt(target, { method: 'GET', path: '/fn?version=2' }),
      args: { city: 'São Paulo & Rio', days: 5, metric: false, tags: ['a', 'b c'], filter: { min: 1.5 } },
      allowHosts: [target.hostAndPort],
    })
    expect(result.ok).toBe(true)
    const [request] = target.received
    expect(request).toMatchObject({ method: 'GET', body: '' })
    const query = new URL(request?.url ?? '', target.origin).searchParams
    expect(Object.fromEntries(query)).toEqual({
      version: '2',
      city: 'São Paulo & Rio',
      days: '5',
      metric: 'false',
      tags: '["a","b c"]',
      filter: '{"min":1.5}',
    })
  })

  it('keeps Content-Type, Host and Content-Length its own whatever the custom headers say', async () => {
    const target = await startEndpoint()
    await invokeFunction({
      fn: functionAt(target, {
        headers: {
          'Content-Type': 'text/plain',
          host: 'internal.example',
          'CONTENT-LENGTH': '1',
          'x-ok': '1',
        },
      }),
      args: { city: 'Quetta' },
      allowHosts: [target.hostAndPort],
    })
    const [request] = target.received
    expect(request?.headers).toMatchObject({
      'content-type': 'application/json',
      host: target.hostAndPort,
      'content-length': String(Buffer.byteLength(request?.body ?? '')),
      'x-ok': '1',
    })
  })

  it('refuses arguments that do not match the schema without calling the endpoint', async () => {
    const target = await startEndpoint()
    const call = (args: unknown) =>
      invokeFunction({ fn: functionAt(target), args, allowHosts: [target.hostAndPort] })
    const missing = await call({ days: 2 })
    expect(missing).toEqual({
      ok: false,
      error: expect.stringContaining("must have required property 'city'"),
    })
    expect(await call({ city: 42 })).toEqual({
      ok: false,
      error: expect.stringContaining('arguments/city must be string'),
    })
    expect(await call({ city: 'x', filter: { min: 'low' } })).toMatchObject({ ok: false })
    expect(await call(['Karachi'])).toMatchObject({
      ok: false,
      error: expect.stringContaining('JSON object'),
    })
    expect(target.received).toHaveLength(0)
  })

  it('reports a non-JSON answer, and a failing status with what the endpoint said', async () => {
    const target = await startEndpoint()
    const allowHosts = [target.hostAndPort]
    const args = { city: 'Multan' }
    expect(await invokeFunction({ fn: functionAt(target, { path: '/text' }), args, allowHosts })).toEqual({
      ok: false,
      status: 200,
      error: 'The function endpoint did not answer with JSON',
    })
    expect(await invokeFunction({ fn: functionAt(target, { path: '/fail' }), args, allowHosts })).toEqual({
      ok: false,
      status: 500,
      error: 'The function endpoint answered HTTP 500: {"error":"database down"}',
    })
  })

  it('refuses a response over 1 MiB', async () => {
    const target = await startEndpoint()
    const result = await invokeFunction({
      fn: functionAt(target, { path: '/huge' }),
      args: { city: 'Hyderabad' },
      allowHosts: [target.hostAndPort],
    })
    expect(result).toEqual({ ok: false, error: "The function endpoint's response is too large (over 1 MiB)" })
  })

  it('gives up on an endpoint that does not answer in time; the bound defaults to the spec’s 10 s', async () => {
    expect(FUNCTION_TIMEOUT_MS).toBe(10_000)
    const target = await startEndpoint()
    const result = await invokeFunction({
      fn: functionAt(target, { path: '/hang' }),
      args: { city: 'Sukkur' },
      allowHosts: [target.hostAndPort],
      timeoutMs: 200,
    })
    expect(result).toEqual({ ok: false, error: 'The function endpoint did not answer within 0.2 s' })
    expect(target.received).toHaveLength(1)
  })

  it('refuses endpoints that are not public https, at call time, without throwing', async () => {
    const target = await startEndpoint()
    const fn = functionAt(target)
    const args = { city: 'Gwadar' }
    expect(await invokeFunction({ fn, args })).toEqual({
      ok: false,
      error: 'The function endpoint is not allowed: it must be an https URL',
    })
    for (const host of ['127.0.0.1', '10.0.0.1', '169.254.169.254', '[::1]', 'localhost']) {
      expect(await invokeFunction({ fn: { ...fn, endpoint: `https://${host}/fn` }, args })).toEqual({
        ok: false,
        error: 'The function endpoint is not allowed: it points to a private or reserved address',
      })
    }
    expect(await invokeFunction({ fn: { ...fn, endpoint: 'not a url' }, args })).toMatchObject({ ok: false })
    expect(target.received).toHaveLength(0)
  })
})
