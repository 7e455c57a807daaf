import { availableParallelism, loadavg } from 'node:os'
import { start } from '../server/src/server.ts'
import { benchDialThroughput } from './batch-dial.ts'
import { benchConfig } from './bench-config.ts'
import { callJson, prepareBatchTenant } from './bench-tenant.ts'

const CREATE_RUNS = 5
const CREATE_CONTACTS = 10_000

const csvOf = (contacts: number) => {
  const rows = Array.from(
    { length: contacts },
    (_, i) => `+1415${String(2_000_000 + i).padStart(7, '0')},Person ${i},gold,"Street ${i}, Springfield"`,
  )
  return `phone,name,plan,address\r\n${rows.join('\r\n')}\r\n`
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN
}

/**
 * Part (a): POST /batch/create with a 10,000-contact CSV (multipart upload, parse, phone checks,
 * dedupe, one transaction with the job and every contact, queueing), timed end to end over
 * loopback; one warm-up, then the p50 of 5. ROLE=api so no worker starts dialling meanwhile.
 */
export const benchCreateFromCsv = async () => {
  const { config, removeDataDir } = benchConfig({ ROLE: 'api' })
  const server = await start({ config })
  try {
    const { key, phoneNumberId } = await prepareBatchTenant(server, {
      adminToken: config.adminToken,
      label: 'Bench',
    })
    const csv = csvOf(CREATE_CONTACTS)
    const createOnce = async () => {
      const form = new FormData()
      form.append('fromPhoneNumberId', phoneNumberId)
      form.append('name', 'Bench job')
      form.append('concurrentCallLimit', '50')
      form.append('file', new Blob([csv], { type: 'text/csv' }), 'contacts.csv')
      const started = performance.now()
      const body = await callJson(`${server.url}/batch/create`, { method: 'POST', token: key, body: form })
      const elapsed = performance.now() - started
      if (body.totalContacts !== CREATE_CONTACTS)
        throw new Error(`created ${String(body.totalContacts)} contacts`)
      return elapsed
    }
    await createOnce()
    const times: number[] = []
    for (let run = 0; run < CREATE_RUNS; run++) times.push(await createOnce())
    const p50 = median(times)
    // Wall time on a shared machine: the load average tells a busy machine from a slow create.
    const load = `load average ${loadavg()[0]?.toFixed(1)} on ${availableParallelism()} CPUs`
    return [
      `batch (a) create from a ${CREATE_CONTACTS.toLocaleString('en-US')}-contact CSV (${(csv.length / 1024).toFixed(0)} KiB), ${config.databaseUrl ? 'PostgreSQL' : 'embedded PGlite'}: 1 warm-up + ${CREATE_RUNS} runs, ${load}`,
      `  runs ${times.map((ms) => `${ms.toFixed(0)} ms`).join(', ')}`,
      `  p50 ${p50.toFixed(0)} ms (target ≤ 1000 ms: ${p50 <= 1000 ? 'met' : 'NOT met'})`,
    ]
  } finally {
    await server.stop()
    removeDataDir()
  }
}

/** `npm run bench -- batch`: each part in its own function, printed in order. */
export const run = async () => {
  process.stdout.write(`${(await benchCreateFromCsv()).join('\n')}\n`)
  process.stdout.write(`${(await benchDialThroughput()).join('\n')}\n`)
}
