import { join } from 'node:path'
import type { Browser, Page } from 'puppeteer-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type FakeLlm, startFakeLlm } from '../../server/test/helpers/fake-llm.ts'
import { startTestServer, type TestServer } from '../../server/test/helpers/test-server.ts'
import {
  clickText,
  copiedText,
  expectGoodPage,
  fill,
  hasBrowser,
  launchBrowser,
  openOwnerPage,
  recordClipboard,
  screenshots,
  waitForText,
} from './browser.ts'

/**
 * The studio in Debian's Chromium against a real server and the fake model: a shop owner who has
 * never seen the API signs up, makes an agent live, gets the script tag for their domain, and a
 * page on that domain with the tag chats with the agent; then the conversation is in the studio.
 * Every page passes axe-core in light and dark and fits 375 px (studio-pages.ts).
 */

let server: TestServer
let llm: FakeLlm
let browser: Browser

beforeAll(async () => {
  if (!hasBrowser) return
  llm = await startFakeLlm()
  llm.setFallback({ text: ['Your order ', 'ships tomorrow.'] })
  server = await startTestServer({ env: { LLM_BASE_URL: llm.baseUrl, LLM_API_KEY: 'test-llm-key' } })
  browser = await launchBrowser()
})
afterAll(async () => {
  await browser?.close()
  await server?.destroy()
  await llm?.close()
})

const signUp = async (
  page: Page,
  { organization, name, url = server.url }: { organization: string; name: string; url?: string },
) => {
  await page.goto(`${url}/studio/`)
  await clickText(page, 'button', 'Create an account')
  await fill(page, '#organizationName', organization)
  await fill(page, '#name', name)
  await fill(page, '#email', `${name.toLowerCase()}-${Date.now()}@shop.example.com`)
  await fill(page, '#password', 'correct horse battery staple')
  await clickText(page, 'button', 'Create account')
  await waitForText(page, 'No agents yet')
}

describe.skipIf(!hasBrowser)('the studio', { timeout: 120_000 }, () => {
  it('takes a new owner from sign-up to a chat on their own page, and shows the conversation', async () => {
    const context = await browser.createBrowserContext()
    const page = await context.newPage()
    await recordClipboard(page)
    await page.setViewport({ width: 1024, height: 800 })
    await page.goto(`${server.url}/studio/`)
    await clickText(page, 'button', 'Create an account')
    await page.waitForSelector('#organizationName')
    await expectGoodPage(page, 'sign-up')
    await signUp(page, { organization: 'Northwind Shop', name: 'Ada' })
    expect(await page.$eval('header', (element) => element.textContent)).toContain('Northwind Shop · owner')
    await expectGoodPage(page, 'agents-empty')

    await clickText(page, 'button', 'New agent')
    await fill(page, '#name', 'Support Bot')
    await fill(page, '#systemPrompt', 'You help customers of Northwind Shop.')
    await expectGoodPage(page, 'agent-create')
    await clickText(page, 'button', 'Create agent')
    await page.waitForSelector('#agent-title')
    expect(await page.$eval('#agent-title', (element) => element.textContent)).toBe('Support Bot')

    // A setting the API refuses is named under its field, in the API's words; a good one saves.
    await fill(page, '#temperature', '1.5')
    await clickText(page, 'button', 'Save settings')
    await page.waitForSelector('#temperature-problem')
    expect(await page.$eval('#temperature-problem', (element) => element.textContent)).toBe(
      'temperature must be between 0.1 and 1.0',
    )
    expect(await page.$eval('#temperature', (element) => element.getAttribute('aria-invalid'))).toBe('true')
    await fill(page, '#temperature', '0.4')
    await fill(page, '#description', 'Answers order questions')
    await clickText(page, 'button', 'Save settings')
    await waitForText(page, 'Saved.')
    expect(await page.$('#temperature-problem')).toBeNull()
    await expectGoodPage(page, 'agent')
    await clickText(page, 'button', 'Make it live')
    await waitForText(page, 'Take it offline')
    const agentId = (await page.$eval('#agent-id', (element) => element.textContent)) ?? ''

    await clickText(page, 'a', 'Put it on your website')
    await fill(page, '#keyName', 'Shop website')
    await fill(page, '#allowedDomains', 'localhost')
    await clickText(page, 'button', 'Create key and script tag')
    await page.waitForSelector('#snippet')
    await clickText(page, 'button', 'Copy')
    await waitForText(page, 'Copied')
    // What the owner pastes: what the copy button handed the clipboard.
    const snippet = await copiedText(page)
    expect(snippet).toBe(await page.$eval('#snippet', (element) => element.textContent))
    expect(snippet).toContain(`data-agent-id="${agentId}"`)
    expect(snippet).toMatch(/data-key="tk_widget_[\w-]+"/)
    await expectGoodPage(page, 'install')

    // The owner's page, on the domain the key allows, with the tag pasted in.
    const shop = await browser.newPage()
    await openOwnerPage(
      shop,
      `${server.url}/shop`,
      `<!doctype html><html><body><h1>Northwind Shop</h1>${snippet}</body></html>`,
    )
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
    await shop.close()

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

    // The call it was spoken in, analysed afterwards.
    const { organization_id: organizationId } = await server.ctx.db
      .selectFrom('agents')
      .select('organization_id')
      .where('id', '=', agentId)
      .executeTakeFirstOrThrow()
    const startedAt = new Date()
    await server.ctx.db
      .insertInto('calls')
      .values({
        id: `${conversationId}-call`,
        organization_id: organizationId,
        agent_id: agentId,
        user_id: null,
        key_id: null,
        room_name: `${conversationId}-room`,
        architecture: 'pipeline',
        direction: 'web',
        status: 'ended',
        started_at: startedAt,
        ended_at: startedAt,
        duration_seconds: 75,
        end_reason: 'visitor hung up',
        phone_number: null,
        batch_job_id: null,
        batch_contact_id: null,
        created_at: startedAt,
        conversation_id: conversationId,
        analysis_summary: 'The visitor asked to change the delivery address.',
        analysis_sentiment: 'neutral',
        analysis_outcome: 'address change requested',
        analysis_data: JSON.stringify({ orderFound: true }),
        analyzed_at: startedAt,
      })
      .execute()
    await server.ctx.db
      .insertInto('call_transcript_lines')
      .values(
        [
          { role: 'user' as const, content: 'Can I change the address?' },
          { role: 'assistant' as const, content: 'Yes, tell me the new one.' },
        ].map((line, position) => ({
          id: `${conversationId}-line-${position}`,
          call_id: `${conversationId}-call`,
          organization_id: organizationId,
          spoken_at: startedAt,
          position,
          ...line,
        })),
      )
      .execute()

    await page.bringToFront()
    await page.click('nav a[href="/studio/conversations"]')
    await waitForText(page, 'Support Bot')
    await expectGoodPage(page, 'conversations')
    await page.click('tbody a')
    await waitForText(page, 'Your order ships tomorrow.')
    const timeline = await page.$$eval('.transcript .turn', (turns) => turns.map((turn) => turn.textContent))
    expect(timeline).toEqual([
      'Visitor (typed)Where is my order?',
      'Agent (typed)Your order ships tomorrow.',
      'Visitor (spoken)Can I change the address?',
    ])
    await expectGoodPage(page, 'conversation')

    // The call, from the conversation: what was said, how long, and its analysis.
    await page.click('.list a[href^="/studio/calls/"]')
    await waitForText(page, 'Yes, tell me the new one.')
    expect(await page.$$eval('.transcript .turn', (turns) => turns.map((turn) => turn.textContent))).toEqual([
      'CallerCan I change the address?',
      'AgentYes, tell me the new one.',
    ])
    await waitForText(page, 'address change requested')
    await waitForText(page, '1 min 15 s')
    await expectGoodPage(page, 'call')
    // Every call, searchable by what was said and filtered.
    await page.click('nav a[href="/studio/calls"]')
    await waitForText(page, 'from the website')
    await fill(page, '#q', 'address')
    await page.select('select[name="direction"]', 'outbound')
    await clickText(page, 'button', 'Search')
    await waitForText(page, 'No call matches.')
    await page.select('select[name="direction"]', 'web')
    await clickText(page, 'button', 'Search')
    await page.waitForSelector('tbody a')
    await expectGoodPage(page, 'calls')
    // The owners' charts: today's conversation and call, drawn by uPlot, which only this page loads.
    const studioHtml = await (await fetch(`${server.url}/studio/`)).text()
    const firstLoad = studioHtml.match(/src="([^"]+\.js)"/)?.[1] ?? ''
    expect(firstLoad).not.toBe('')
    expect(await (await fetch(new URL(firstLoad, `${server.url}/studio/`))).text()).not.toContain('u-legend')
    await page.click('nav a[href="/studio/analytics"]')
    await page.waitForSelector('.chart canvas')
    expect(await page.$$eval('.chart canvas', (canvases) => canvases.length)).toBe(4)
    expect(await page.$eval('.totals', (totals) => totals.textContent)).toMatch(/Conversations1Calls1/)
    await expectGoodPage(page, 'analytics')
    await context.close()
  })

  it('keeps the chosen dark theme, and leads a missing provider key to the page redirectUrl names', async () => {
    // A deployment with no model provider configured, where speech to text from a provider the
    // platform holds no key for needs the organization's own; and a browser of its own.
    const bare = await startTestServer()
    const context = await browser.createBrowserContext()
    const page = await context.newPage()
    await page.setViewport({ width: 375, height: 740 })
    await signUp(page, { organization: 'Dark Shop', name: 'Bilal', url: bare.url })
    await page.select('::-p-xpath(//header//select[option[@value="dark"]])', 'dark')
    await page.reload()
    await waitForText(page, 'No agents yet')
    expect(await page.evaluate(() => document.documentElement.dataset.theme)).toBe('dark')
    expect(await page.$eval('body', (element) => getComputedStyle(element).backgroundColor)).toBe(
      'rgb(20, 23, 26)',
    )
    await page.screenshot({ path: join(screenshots, 'agents-chosen-dark-375.png') })

    // A voice agent whose speech to text needs the organization's own key (Groq's, which the
    // platform does not hold here) is refused when it is made, with the way to the provider keys.
    const groqStt = 'groq-whisper-large-v3-turbo'
    const newPipelineAgent = async (stt?: string) => {
      await page.click('nav a[href="/studio/agents"]')
      await clickText(page, 'button', 'New agent')
      await (await page.waitForSelector('input[value="pipeline"]'))?.click()
      await page.waitForSelector('#stt')
      if (stt) await page.select('#stt', stt)
      await fill(page, '#name', 'Phone Bot')
      await fill(page, '#systemPrompt', 'You take orders by phone.')
      await clickText(page, 'button', 'Create agent')
    }
    await newPipelineAgent(groqStt)
    await page.waitForSelector('[role="alert"] a')
    expect(await page.$eval('[role="alert"]', (element) => element.textContent)).toContain(
      'The provider groq is not configured',
    )
    await clickText(page, 'a', 'Add your provider keys')
    await page.waitForSelector('#provider-keys-title')
    await expectGoodPage(page, 'provider-keys-empty')

    // Made with the platform's speech to text, then switched to Groq's in its settings: the studio
    // form saves the platform's choice instead, says so, and links to the page its redirectUrl names.
    await newPipelineAgent()
    await page.waitForSelector('#agent-title')
    const platformStt = await page.$eval('#stt', (element) => (element as HTMLSelectElement).value)
    await page.select('#stt', groqStt)
    await clickText(page, 'button', 'Save settings')
    await waitForText(page, 'Your organization has no key for groq')
    expect(await page.$eval('#stt', (element) => (element as HTMLSelectElement).value)).toBe(platformStt)
    expect(await page.$eval('.notice', (element) => element.textContent)).toContain(
      `saved instead (speech to text ${platformStt}).`,
    )
    await expectGoodPage(page, 'agent-missing-key')
    const agentPath = new URL(page.url()).pathname
    await clickText(page, 'a', 'Add your provider keys')
    await page.waitForSelector('#provider-keys-title')
    expect(page.url()).toBe(`${bare.url}/studio/settings/organization/provider-keys`)

    // The contract's redirectUrl, opened directly, lands on the same page.
    await page.goto(`${bare.url}/settings/organization/provider-keys`)
    await page.waitForSelector('#provider-keys-title')
    expect(page.url()).toBe(`${bare.url}/studio/settings/organization/provider-keys`)
    await page.select('#provider', 'groq')
    await fill(page, '#key', 'gsk_test_4321')
    await clickText(page, 'button', 'Save key')
    await waitForText(page, '…4321')
    await expectGoodPage(page, 'provider-keys')

    // An error the API answers is shown in words where it happened.
    await page.select('#provider', 'openai')
    await fill(page, '#key', 'short')
    await page.$eval('#key', (element) => element.removeAttribute('minlength'))
    await clickText(page, 'button', 'Save key')
    await page.waitForSelector('[role="alert"]')

    // With the key, Groq's speech to text is saved as chosen.
    await page.goto(`${bare.url}${agentPath}`)
    await page.waitForSelector('#stt')
    await page.select('#stt', groqStt)
    await clickText(page, 'button', 'Save settings')
    await waitForText(page, 'Saved.')
    await page.reload()
    await page.waitForSelector('#stt')
    expect(await page.$eval('#stt', (element) => (element as HTMLSelectElement).value)).toBe(groqStt)

    await context.close()
    await bare.destroy()
  })
})
