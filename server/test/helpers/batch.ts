import { setBalanceMicros } from './billing.ts'
import { createTeamWithKeys, makeAgent } from './organization.ts'
import type { TestServer } from './test-server.ts'

/**
 * A team whose owner key can run batch jobs: a pipeline agent, a phone number assigned to it,
 * and credits for 10,000 pipeline calls and more.
 */
export const createBatchTenant = async (server: TestServer, { creditsUsd = 1000 } = {}) => {
  const { team, keys } = await createTeamWithKeys(server)
  const agent = await makeAgent(server, team.owner, { agentArchitecture: 'pipeline' })
  await setBalanceMicros(server, {
    organizationId: team.organizationId,
    micros: creditsUsd * 1_000_000,
    reason: 'batch test credits',
  })
  const phoneNumberId = await registerPhoneNumber(server, keys.owner, {
    number: '+14155550100',
    outboundAgentId: agent.id,
    sipTrunkId: 'ST_test',
  })
  return { team, keys, key: keys.owner, agent, phoneNumberId }
}

/** POST /v1/phone-numbers with `key`; the new number's id (any answer but 201 throws). */
export const registerPhoneNumber = async (server: TestServer, key: string, body: Record<string, unknown>) => {
  const created = await server.request('/v1/phone-numbers', { method: 'POST', token: key, json: body })
  if (created.status !== 201) throw new Error(`phone number: ${created.status} ${await created.text()}`)
  return ((await created.json()) as { data: { id: string } }).data.id
}

/** POST /batch/create in JSON mode. */
export const createBatchJson = (server: TestServer, key: string, body: Record<string, unknown>) =>
  server.request('/batch/create', { method: 'POST', token: key, json: body })

/** POST /batch/create in CSV mode: the file plus text fields, as a browser form sends them. */
export const createBatchCsv = (
  server: TestServer,
  key: string,
  csv: string | Buffer,
  fields: Record<string, string>,
  headers: Record<string, string> = {},
) => {
  const form = new FormData()
  for (const [name, value] of Object.entries(fields)) form.append(name, value)
  form.append(
    'file',
    new Blob([typeof csv === 'string' ? csv : new Uint8Array(csv)], { type: 'text/csv' }),
    'contacts.csv',
  )
  return server.request('/batch/create', { method: 'POST', token: key, body: form, headers })
}

/** `count` distinct valid US numbers, +1 415 2xx xxxx. */
export const validPhones = (count: number, from = 0) =>
  Array.from({ length: count }, (_, i) => `+1415${String(2_000_000 + from + i).padStart(7, '0')}`)

/**
 * A multipart/form-data body written byte by byte: text fields as given (a field may carry bytes
 * FormData would never send, such as invalid UTF-8), then the CSV as the `file` part.
 */
export const rawMultipart = (fields: Array<[string, Buffer | string]>, csv: Buffer | string) => {
  const boundary = `parley-${Math.random().toString(36).slice(2)}`
  const body = Buffer.concat([
    ...fields.flatMap(([name, value]) => [
      Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n`),
      Buffer.from(value),
      Buffer.from('\r\n'),
    ]),
    Buffer.from(
      `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="contacts.csv"\r\nContent-Type: text/csv\r\n\r\n`,
    ),
    Buffer.from(csv),
    Buffer.from(`\r\n--${boundary}--\r\n`),
  ])
  return { body: new Uint8Array(body), contentType: `multipart/form-data; boundary=${boundary}` }
}
