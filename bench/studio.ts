import { execFileSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { gzipSync } from 'node:zlib'
import puppeteer, { type Page } from 'puppeteer-core'
import { start } from '../server/src/server.ts'
import { benchConfig } from './bench-config.ts'
import { percentile } from './stats.ts'

/** Issue 17: the studio's first load (its page, script and styles) aims under 60 KB gzip. */
const FIRST_LOAD_AIM_BYTES = 60 * 1024

const studioDirectory = fileURLToPath(new URL('../studio', import.meta.url))
const distDirectory = join(studioDirectory, 'dist')

const CHROMIUM = '/usr/bin/chromium'
const LOADS = 7

/**
 * The studio's pages, each opened by a full page load: how many API requests its data took (the
 * aim is one or two). Paths are the studio's own (below /studio).
 */
const PAGES = [
  '/agents',
  '/install',
  '/conversations',
  '/calls',
  '/campaigns',
  '/campaigns/phone-numbers',
  '/campaigns/new',
  '/settings/organization/members',
  '/settings/organization/api-keys',
  '/settings/organization/credits',
  '/settings/organization/webhooks',
  '/settings/organization/provider-keys',
]

const post = async (url: string, body: unknown, token?: string) => {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: JSON.stringify(body),
  })
  if (!response.ok) throw new Error(`${url}: ${response.status} ${await response.text()}`)
  return (await response.json()) as Record<string, unknown>
}

/** The API requests a page makes from navigation until the network is quiet. */
const apiRequestsOf = async (page: Page, url: string) => {
  const seen: string[] = []
  const listener = (request: { url: () => string }) => {
    const path = new URL(request.url()).pathname
    if (
      path.startsWith('/v1/') ||
      path.startsWith('/api/') ||
      path === '/batch' ||
      path.startsWith('/batch/')
    )
      seen.push(path)
  }
  page.on('request', listener)
  await page.goto(url, { waitUntil: 'networkidle0' })
  page.off('request', listener)
  return seen
}

/**
 * Time to interactive on the agents page, from navigation start: the list shown, then a click on
 * "New agent" answered with its form (cold: an empty browser cache; warm: the assets cached).
 */
const timeToInteractive = async (page: Page, url: string) => {
  await page.goto(url)
  await page.waitForSelector('#agents-title ~ .list, #agents-title ~ .empty, .list, .empty')
  const listShown = await page.evaluate(() => performance.now())
  await page.click('#agents-title + button')
  await page.waitForSelector('#create-agent')
  const interactive = await page.evaluate(() => performance.now())
  return { listShown, interactive }
}

const measurePages = async () => {
  const { config, removeDataDir } = benchConfig()
  const server = await start({ config })
  const browser = await puppeteer.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking'],
  })
  try {
    const session = await post(`${server.url}/api/auth/signup`, {
      organizationName: 'Bench Shop',
      name: 'Bench',
      email: `bench-${Date.now()}@shop.example.com`,
      password: 'correct horse battery staple',
    })
    const agentIds: string[] = []
    for (const name of ['Support', 'Sales', 'Returns']) {
      const created = await post(
        `${server.url}/v1/agents`,
        { name, agentArchitecture: 'text', systemPrompt: `You are ${name}.` },
        String(session.token),
      )
      agentIds.push(String((created.data as { id: string }).id))
    }
    const page = await browser.newPage()
    await page.goto(`${server.url}/studio/`)
    await page.evaluate(
      (value) => localStorage.setItem('parley.studio.session', value),
      JSON.stringify(session),
    )

    const cold: number[] = []
    const coldList: number[] = []
    const warm: number[] = []
    const warmList: number[] = []
    for (let load = 0; load < LOADS; load++) {
      const client = await page.createCDPSession()
      await client.send('Network.clearBrowserCache')
      await client.detach()
      const first = await timeToInteractive(page, `${server.url}/studio/agents`)
      coldList.push(first.listShown)
      cold.push(first.interactive)
      const again = await timeToInteractive(page, `${server.url}/studio/agents`)
      warmList.push(again.listShown)
      warm.push(again.interactive)
    }
    const ms = (values: number[]) => `${percentile(values, 50).toFixed(0)} ms`
    process.stdout.write(
      `\nagents page, median of ${LOADS} loads from navigation start (loopback, embedded database):\n` +
        `  cold cache: list shown ${ms(coldList)}, interactive ${ms(cold)}\n` +
        `  warm cache: list shown ${ms(warmList)}, interactive ${ms(warm)}\n\nAPI requests per page (aim: one or two):\n`,
    )
    for (const path of [...PAGES, `/agents/${agentIds[0]}`]) {
      const requests = await apiRequestsOf(page, `${server.url}/studio${path}`)
      process.stdout.write(
        `  ${path.padEnd(44)}${String(requests.length).padStart(3)}  ${requests.join(' ')}\n`,
      )
    }
  } finally {
    await browser.close()
    await server.stop()
    removeDataDir()
  }
}

/**
 * `npm run bench -- studio`: a fresh build's files, raw and gzip, and the first load against its
 * aim; then in Chromium, time to interactive on the agents page and the API requests of each page.
 */
export const run = async () => {
  execFileSync('npx', ['vite', 'build', '--logLevel', 'warn'], { cwd: studioDirectory, stdio: 'inherit' })
  // What the first page loads: index.html and the files it links (dist/ may hold older builds' files).
  const html = readFileSync(join(distDirectory, 'index.html'), 'utf8')
  const linked = [...html.matchAll(/(?:src|href)="\/studio\/([^"]+)"/g)].map((match) => match[1] ?? '')
  const files = ['index.html', ...linked].map((file) => {
    const bytes = readFileSync(join(distDirectory, file))
    return { file, raw: bytes.length, gzip: gzipSync(bytes, { level: 9 }).length }
  })
  for (const row of files)
    process.stdout.write(
      `${row.file.padEnd(36)}${String(row.raw).padStart(10)}${String(row.gzip).padStart(10)}\n`,
    )
  const gzip = files.reduce((sum, row) => sum + row.gzip, 0)
  process.stdout.write(
    `studio first load: ${gzip.toLocaleString('en-US')} B gzip (aim < ${FIRST_LOAD_AIM_BYTES.toLocaleString('en-US')} B: ${gzip < FIRST_LOAD_AIM_BYTES ? 'met' : 'NOT met'})\n`,
  )
  await measurePages()
}
