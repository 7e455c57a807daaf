import { execFileSync } from 'node:child_process'
import { existsSync, mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import puppeteer, { type Browser, type Page } from 'puppeteer-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type FakeLlm, startFakeLlm } from './helpers/fake-llm.ts'
import { startTestServer, type TestServer } from './helpers/test-server.ts'

/**
 * The studio in Debian's Chromium against a real server and the fake model: a shop owner who has
 * never seen the API signs up, makes an agent live, gets the script tag for their domain, and a
 * page on that domain with the tag chats with the agent; then the conversation is in the studio.
 */
const CHROMIUM = '/usr/bin/chromium'
const root = fileURLToPath(new URL('../..', import.meta.url))
const screenshots = join(root, 'test-output', 'studio')
const hasBrowser = existsSync(CHROMIUM)
if (!hasBrowser && process.env.PARLEY_REQUIRE_BROWSER)
  throw new Error(`Chromium is required (PARLEY_REQUIRE_BROWSER) but ${CHROMIUM} is missing`)

let server: TestServer
let llm: FakeLlm
let browser: Browser

beforeAll(async () => {
  if (!hasBrowser) return
  // What `npm start` serves: the studio as it is now, and the widget (built once: other tests and
  // `npm start` may be serving it).
  execFileSync('npx', ['vite', 'build', '--logLevel', 'warn'], {
    cwd: join(root, 'studio'),
    stdio: 'inherit',
  })
  if (!existsSync(join(root, 'widget/dist/parley.js')))
    execFileSync('npx', ['vite', 'build', '--logLevel', 'warn'], {
      cwd: join(root, 'widget'),
      stdio: 'inherit',
    })
  mkdirSync(screenshots, { recursive: true })
  llm = await startFakeLlm()
  llm.setFallback({ text: ['Your order ', 'ships tomorrow.'] })
  server = await startTestServer({ env: { LLM_BASE_URL: llm.baseUrl, LLM_API_KEY: 'test-llm-key' } })
  browser = await puppeteer.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking'],
  })
})
afterAll(async () => {
  await browser?.close()
  await server?.destroy()
  await llm?.close()
})

const fill = async (page: Page, selector: string, value: string) => {
  await page.waitForSelector(selector)
  await page.$eval(selector, (element) => {
    ;(element as HTMLInputElement).value = ''
  })
  await page.type(selector, value)
}
const clickText = async (page: Page, tag: string, text: string) => {
  const element = await page.waitForSelector(`::-p-xpath(//${tag}[contains(., ${JSON.stringify(text)})])`)
  await element?.click()
}
const waitForText = async (page: Page, text: string) => {
  try {
    await page.waitForFunction(
      (wanted) => document.body.innerText.includes(wanted),
      { timeout: 15_000 },
      text,
    )
  } catch (error) {
    const shown = await page.evaluate(() => document.body.innerText)
    throw new Error(`"${text}" never showed on ${page.url()}; the page says: ${shown.slice(0, 500)}`, {
      cause: error,
    })
  }
}

describe.skipIf(!hasBrowser)('the studio', { timeout: 90_000 }, () => {
  it('takes a new owner from sign-up to a chat on their own page, and shows the conversation', async () => {
    const page = await browser.newPage()
    await page.setViewport({ width: 1024, height: 800 })
    await page.goto(`${server.url}/studio/`)
    await clickText(page, 'button', 'Create an account')
    await fill(page, '#organizationName', 'Northwind Shop')
    await fill(page, '#name', 'Ada')
    await fill(page, '#email', `ada-${Date.now()}@shop.example.com`)
    await fill(page, '#password', 'correct horse battery staple')
    await clickText(page, 'button', 'Create account')
    await waitForText(page, 'No agents yet')
    await page.screenshot({ path: join(screenshots, 'agents-empty.png') })

    await clickText(page, 'button', 'New agent')
    await fill(page, '#name', 'Support Bot')
    await fill(page, '#systemPrompt', 'You help customers of Northwind Shop.')
    await page.screenshot({ path: join(screenshots, 'agent-create.png') })
    await clickText(page, 'button', 'Create agent')
    await page.waitForSelector('#agent-title')
    expect(await page.$eval('#agent-title', (element) => element.textContent)).toBe('Support Bot')
    await clickText(page, 'button', 'Make it live')
    await waitForText(page, 'Take it offline')
    const agentId = (await page.$eval('code', (element) => element.textContent)) ?? ''

    await clickText(page, 'a', 'Put it on your website')
    await fill(page, '#keyName', 'Shop website')
    await fill(page, '#allowedDomains', 'localhost')
    await clickText(page, 'button', 'Create key and script tag')
    await page.waitForSelector('#snippet')
    const snippet = (await page.$eval('#snippet', (element) => element.textContent)) ?? ''
    expect(snippet).toContain(`data-agent-id="${agentId}"`)
    expect(snippet).toMatch(/data-key="tk_widget_[\w-]+"/)
    await page.screenshot({ path: join(screenshots, 'install.png') })

    // The owner's page, on the domain the key allows, with the tag pasted in.
    const shop = await browser.newPage()
    await shop.goto(`${server.url}/healthz`)
    await shop.setContent(`<!doctype html><html><body><h1>Northwind Shop</h1>${snippet}</body></html>`)
    await shop.waitForFunction(() => {
      const widget = document.querySelector('parley-widget') as (HTMLElement & { open?: () => void }) | null
      if (!widget?.shadowRoot || !widget.open) return false
      widget.open()
      return widget.shadowRoot.querySelector('textarea') !== null
    })
    await shop.evaluate(() => {
      const input = document.querySelector('parley-widget')?.shadowRoot?.querySelector('textarea')
      if (!input) throw new Error('no composer')
      input.value = 'Where is my order?'
      input.dispatchEvent(new Event('input', { bubbles: true }))
      input.dispatchEvent(new KeyboardEvent('keydown', { key: 'Enter', bubbles: true }))
    })
    await shop
      .waitForFunction(
        () =>
          [...(document.querySelector('parley-widget')?.shadowRoot?.querySelectorAll('.message') ?? [])].some(
            (message) => message.textContent?.includes('Your order ships tomorrow.'),
          ),
        { timeout: 15_000 },
      )
      .catch(async (error: unknown) => {
        const shown = await shop.evaluate(
          () =>
            (document.querySelector('parley-widget')?.shadowRoot as unknown as HTMLElement | null)
              ?.textContent,
        )
        throw new Error(`the widget never showed the reply; it shows: ${shown?.slice(0, 500)}`, {
          cause: error,
        })
      })
    await shop.screenshot({ path: join(screenshots, 'shop-chat.png') })

    // The visitor then spoke in a call that continued the conversation (issue 20): one timeline.
    const { id: conversationId } = await server.ctx.db
      .selectFrom('conversations')
      .select('id')
      .where('agent_id', '=', agentId)
      .executeTakeFirstOrThrow()
    await server.ctx.db
      .insertInto('chat_messages')
      .values({
        id: `${conversationId}-spoken`,
        conversation_id: conversationId,
        role: 'user',
        content: 'Can I change the address?',
        channel: 'voice',
        created_at: new Date(),
      })
      .execute()

    await page.bringToFront()
    await page.click('nav a[href="/studio/conversations"]')
    await waitForText(page, 'Support Bot')
    await page.click('tbody a')
    await waitForText(page, 'Your order ships tomorrow.')
    const timeline = await page.$$eval('.transcript .turn', (turns) => turns.map((turn) => turn.textContent))
    expect(timeline).toEqual([
      'VisitorWhere is my order?',
      'AgentYour order ships tomorrow.',
      'Visitor (spoken)Can I change the address?',
    ])
    await page.screenshot({ path: join(screenshots, 'conversation.png') })
  })

  it('opens the provider keys page the contract’s redirectUrl names, in dark mode and at 375 px', async () => {
    // A browser of its own: nobody is signed in yet.
    const page = await (await browser.createBrowserContext()).newPage()
    await page.emulateMediaFeatures([{ name: 'prefers-color-scheme', value: 'dark' }])
    await page.setViewport({ width: 375, height: 740 })
    await page.goto(`${server.url}/studio/`)
    await clickText(page, 'button', 'Create an account')
    await fill(page, '#organizationName', 'Dark Shop')
    await fill(page, '#name', 'Bilal')
    await fill(page, '#email', `bilal-${Date.now()}@shop.example.com`)
    await fill(page, '#password', 'correct horse battery staple')
    await clickText(page, 'button', 'Create account')
    await waitForText(page, 'No agents yet')
    await page.screenshot({ path: join(screenshots, 'agents-dark-375.png') })

    // The redirectUrl is a path on this server: it lands on the studio's page.
    await page.goto(`${server.url}/settings/organization/provider-keys`)
    await page.waitForSelector('#provider-keys-title')
    expect(page.url()).toBe(`${server.url}/studio/settings/organization/provider-keys`)
    await page.select('#provider', 'groq')
    await fill(page, '#key', 'gsk_test_0123456789')
    await clickText(page, 'button', 'Save key')
    await waitForText(page, '…6789')
    // The page fits the phone's width.
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(375)
    await page.screenshot({ path: join(screenshots, 'provider-keys-dark-375.png') })

    // An error the API answers is shown in words where it happened.
    await page.select('#provider', 'openai')
    await fill(page, '#key', 'short')
    await page.$eval('#key', (element) => element.removeAttribute('minlength'))
    await clickText(page, 'button', 'Save key')
    await page.waitForSelector('[role="alert"]')
  })
})
