import { readdirSync, readFileSync } from 'node:fs'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { join } from 'node:path'
import { gzipSync } from 'node:zlib'
import puppeteer, { type Browser } from 'puppeteer-core'
import { start } from '../server/src/server.ts'
import { benchConfig } from './bench-config.ts'
import { percentile } from './stats.ts'

const CHROMIUM = '/usr/bin/chromium'
const RUNS = 7

/** Lighthouse's mobile profile: its "slow 4G" (150 ms round trip, 1.6 Mbit/s down) and a 4× slower CPU. */
const PROFILES = [
  { name: 'loopback', network: null, cpuSlowdown: 1 },
  {
    name: 'mobile (150 ms RTT, 1.6 Mbit/s, CPU ÷4)',
    network: {
      latency: 150,
      downloadThroughput: (1.6 * 1024 * 1024) / 8,
      uploadThroughput: (750 * 1024) / 8,
    },
    cpuSlowdown: 4,
  },
] as const

type Settings = { script: string; agentId: string; key: string; baseUrl: string }
type Sample = { bubble: number; open: number }

/**
 * A host page's origin serving `dist/` gzipped (as a CDN in front of /widget/ would: the API server
 * itself sends the files as they are), and a blank page that the benchmark fills.
 */
const serveHost = async (distDirectory: string) => {
  const files = new Map(
    readdirSync(distDirectory).map((file) => [
      `/widget/${file}`,
      gzipSync(readFileSync(join(distDirectory, file)), { level: 9 }),
    ]),
  )
  const server = createServer((request, response) => {
    const body = files.get(request.url ?? '')
    if (body) {
      response.writeHead(200, {
        'content-type': 'text/javascript',
        'content-encoding': 'gzip',
        'access-control-allow-origin': '*',
      })
      return response.end(body)
    }
    response.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><html><body></body></html>')
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => server.close(),
  }
}

/**
 * One visit in a fresh browser context (empty cache): the script tag is added, the bubble appears,
 * and the launcher is clicked, at once (`cold`: the panel chunk is fetched by the click) or once
 * the browser has been idle and the chunk has arrived. `open` ends when the panel is in the DOM.
 */
const visit = async (
  browser: Browser,
  hostUrl: string,
  settings: Settings,
  profile: (typeof PROFILES)[number],
  { isWarm, hasPanelChunk }: { isWarm: boolean; hasPanelChunk: boolean },
): Promise<Sample> => {
  const context = await browser.createBrowserContext()
  try {
    const page = await context.newPage()
    const client = await page.createCDPSession()
    if (profile.network)
      await client.send('Network.emulateNetworkConditions', { offline: false, ...profile.network })
    await client.send('Emulation.setCPUThrottlingRate', { rate: profile.cpuSlowdown })
    // tsx compiles this file keeping function names through a `__name` helper, which the page's
    // copy of the function below calls but the page does not have.
    await page.evaluateOnNewDocument('globalThis.__name = (target) => target')
    await page.goto(hostUrl)
    return await page.evaluate(
      async ({ script, agentId, key, baseUrl }, isWarm, hasPanelChunk) => {
        const frame = () => new Promise((resolve) => requestAnimationFrame(resolve))
        const started = performance.now()
        await new Promise((resolve, reject) => {
          const tag = document.createElement('script')
          tag.src = script
          tag.onload = resolve
          tag.onerror = reject
          document.head.append(tag)
        })
        const widget = document.createElement('parley-widget')
        widget.setAttribute('agent-id', agentId)
        widget.setAttribute('key', key)
        widget.setAttribute('base-url', baseUrl)
        document.body.append(widget)
        const root = widget.shadowRoot as ShadowRoot
        const launcher = root.querySelector('.launcher') as HTMLButtonElement
        await frame()
        const bubble = performance.now() - started
        if (isWarm) {
          await new Promise((resolve) => requestIdleCallback(resolve))
          const isLoaded = () =>
            performance.getEntriesByType('resource').some((entry) => /\/panel-/.test(entry.name))
          while (hasPanelChunk && !isLoaded()) await frame()
          await frame()
          await frame()
        }
        // Clicked in the same task as the frame above: no idle time has passed in a cold visit.
        const opened = new Promise<number>((resolve) => {
          const observer = new MutationObserver(() => {
            if (!root.querySelector('.panel')) return
            observer.disconnect()
            resolve(performance.now())
          })
          observer.observe(root, { childList: true, subtree: true })
        })
        const clicked = performance.now()
        launcher.click()
        return { bubble, open: (await opened) - clicked }
      },
      settings,
      isWarm,
      hasPanelChunk,
    )
  } finally {
    await context.close()
  }
}

/**
 * In Chromium, on loopback and on a mobile profile: the time from adding the script tag to the
 * bubble, and from a click on it to the open panel, cold (clicked the moment it shows) and warm
 * (clicked after the browser was idle). Medians of RUNS visits, each in an empty cache.
 */
export const measureOpen = async (distDirectory: string) => {
  const hasPanelChunk = readdirSync(distDirectory).some((file) => /^panel-.*\.js$/.test(file))
  const { config, removeDataDir } = benchConfig()
  const server = await start({ config, seedDemo: true })
  const host = await serveHost(distDirectory)
  const browser = await puppeteer.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking'],
  })
  try {
    const tenant = server.demo?.tenant
    if (!tenant) throw new Error('the demo tenant was not seeded')
    const settings = {
      script: `${host.url}/widget/parley.js`,
      agentId: tenant.textAgentId,
      key: tenant.widgetKey,
      baseUrl: server.url,
    }
    const ms = (values: number[]) => `${percentile(values, 50).toFixed(0)} ms`
    process.stdout.write(
      `\nin Chromium, median of ${RUNS} visits with an empty cache (files served gzipped):\n`,
    )
    for (const profile of PROFILES) {
      const cold: Sample[] = []
      const warm: Sample[] = []
      for (let run = 0; run < RUNS; run++) {
        cold.push(await visit(browser, host.url, settings, profile, { isWarm: false, hasPanelChunk }))
        warm.push(await visit(browser, host.url, settings, profile, { isWarm: true, hasPanelChunk }))
      }
      process.stdout.write(
        `  ${profile.name}: script tag to bubble ${ms([...cold, ...warm].map((sample) => sample.bubble))}; ` +
          `click to open panel ${ms(cold.map((sample) => sample.open))} at once, ` +
          `${ms(warm.map((sample) => sample.open))} after idle\n`,
      )
    }
  } finally {
    await browser.close()
    host.close()
    await server.stop()
    removeDataDir()
  }
}
