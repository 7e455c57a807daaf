import { ConfigError, loadConfig } from '../config.ts'

const usage = `Usage: npm run admin -- <command>

  orgs                                     list organizations with tier, limit and balance
  set-tier <orgId> <free|pro|enterprise> [perMinute]
                                           change the tier (and custom per-minute limit)
  credit <orgId> <amountUsd> <reason...>   grant credits (negative corrects them down)
  ledger <orgId>                           the latest ledger entries, newest first

Talks to the running server at PUBLIC_BASE_URL (default http://localhost:PORT) with ADMIN_TOKEN
(default: the one generated into DATA_DIR).`

type Organization = {
  id: string
  name: string
  tier: string
  rateLimitPerMinute: number
  creditBalanceUsd: number
  overdrawn: boolean
}
type LedgerEntry = {
  createdAt: string
  kind: string
  amountUsd: number
  balanceAfterUsd: number
  reason: string
}

class CliError extends Error {}

const callApi = async <T>(path: string, init: { method?: string; body?: unknown } = {}): Promise<T> => {
  const config = loadConfig()
  const baseUrl = config.publicBaseUrl ?? `http://localhost:${config.port}`
  let response: Response
  try {
    response = await fetch(`${baseUrl}${path}`, {
      method: init.method ?? 'GET',
      headers: { authorization: `Bearer ${config.adminToken}`, 'content-type': 'application/json' },
      ...(init.body !== undefined ? { body: JSON.stringify(init.body) } : {}),
    })
  } catch {
    throw new CliError(
      `Parley is not reachable at ${baseUrl}; start it with \`npm start\` or set PUBLIC_BASE_URL.`,
    )
  }
  const body = (await response.json().catch(() => ({}))) as { data?: T; error?: string }
  if (!response.ok) throw new CliError(`${response.status}: ${body.error ?? response.statusText}`)
  return body.data as T
}

const usd = (amount: number) => `$${amount.toFixed(6).replace(/0{1,4}$/, '')}`

const printTable = (rows: Record<string, string>[]) => {
  const first = rows[0]
  if (!first) return console.log('(none)')
  const columns = Object.keys(first)
  const widths = columns.map((column) =>
    Math.max(column.length, ...rows.map((row) => (row[column] ?? '').length)),
  )
  const line = (cells: string[]) =>
    cells
      .map((cell, i) => cell.padEnd(widths[i] ?? 0))
      .join('  ')
      .trimEnd()
  console.log(line(columns))
  for (const row of rows) console.log(line(columns.map((column) => row[column] ?? '')))
}

const describeOrganization = (org: Organization) =>
  `${org.name} (${org.id}): ${org.tier}, ${org.rateLimitPerMinute}/min, balance ${usd(org.creditBalanceUsd)}`

const commands: Record<string, (args: string[]) => Promise<void>> = {
  orgs: async () => {
    const organizations = await callApi<Organization[]>('/admin/organizations')
    printTable(
      organizations.map((org) => ({
        id: org.id,
        name: org.name,
        tier: org.tier,
        'per minute': String(org.rateLimitPerMinute),
        balance: `${usd(org.creditBalanceUsd)}${org.overdrawn ? ' OVERDRAWN' : ''}`,
      })),
    )
  },
  'set-tier': async ([orgId, tier, perMinute]) => {
    if (!orgId || !tier) throw new CliError(usage)
    const body = { tier, ...(perMinute !== undefined ? { rateLimitPerMinute: Number(perMinute) } : {}) }
    const org = await callApi<Organization>(`/admin/organizations/${encodeURIComponent(orgId)}`, {
      method: 'PATCH',
      body,
    })
    console.log(`Updated ${describeOrganization(org)}`)
  },
  credit: async ([orgId, amount, ...reason]) => {
    if (!orgId || !amount || reason.length === 0) throw new CliError(usage)
    const result = await callApi<{ organization: Organization }>(
      `/admin/organizations/${encodeURIComponent(orgId)}/credits`,
      {
        method: 'POST',
        body: { amountUsd: Number(amount), reason: reason.join(' ') },
      },
    )
    console.log(`Credited ${describeOrganization(result.organization)}`)
  },
  ledger: async ([orgId]) => {
    if (!orgId) throw new CliError(usage)
    const entries = await callApi<LedgerEntry[]>(`/admin/organizations/${encodeURIComponent(orgId)}/ledger`)
    printTable(
      entries.map((entry) => ({
        when: entry.createdAt,
        kind: entry.kind,
        amount: usd(entry.amountUsd),
        'balance after': usd(entry.balanceAfterUsd),
        reason: entry.reason,
      })),
    )
  },
}

const [name, ...args] = process.argv.slice(2)
const command = name ? commands[name] : undefined
if (!command) {
  console.log(usage)
  process.exit(name && name !== 'help' ? 1 : 0)
}
command(args).catch((error: unknown) => {
  console.error(error instanceof CliError || error instanceof ConfigError ? error.message : String(error))
  process.exit(1)
})
