import { randomBytes } from 'node:crypto'
import { join } from 'node:path'
import type { Browser, Page } from 'puppeteer-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type FakeLiveKit, startFakeLiveKit } from '../../server/test/helpers/fake-livekit.ts'
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
 * Try it and the customiser in Debian's Chromium against a real server, the fake model and the
 * fake LiveKit: an owner chats with an agent that is not live yet on its own page (the studio's
 * token, no widget key), sees a saved setting reach the panel, starts a voice call as far as the
 * voice session; then picks the widget's position, accent, language and starter prompts, sees the
 * preview follow, and the copied tag shows the same widget on a page of the key's domain.
 */

let server: TestServer
let llm: FakeLlm
let livekit: FakeLiveKit
let browser: Browser
const WORKER_TOKEN = randomBytes(24).toString('hex')

beforeAll(async () => {
  if (!hasBrowser) return
  llm = await startFakeLlm()
  llm.setFallback({ text: ['Your order ', 'ships tomorrow.'] })
  livekit = await startFakeLiveKit()
  server = await startTestServer({
    env: { ...livekit.env, LLM_BASE_URL: llm.baseUrl, LLM_API_KEY: 'test-llm-key', WORKER_TOKEN },
  })
  browser = await launchBrowser([
    // A microphone that needs no one to allow it: the call goes as far as the voice session.
    '--use-fake-ui-for-media-stream',
    '--use-fake-device-for-media-stream',
  ])
})
afterAll(async () => {
  await browser?.close()
  await server?.destroy()
  await livekit?.close()
  await llm?.close()
})

/** The text of the widget under `scope` (its shadow root), for a failure's message. */
const widgetText = (page: Page, scope: string) =>
  page.evaluate(
    (where) => document.querySelector(`${where} parley-widget`)?.shadowRoot?.textContent ?? '(no widget)',
    scope,
  )

/**
 * Waits until `check` (an expression of `shadow`) holds inside the widget under `scope`. A string
 * predicate: the studio's CSP allows no eval, so a function building one from text would throw.
 */
const waitInWidget = async (page: Page, scope: string, check: string, what: string) => {
  const shadow = `document.querySelector(${JSON.stringify(`${scope} parley-widget`)})?.shadowRoot`
  await page
    .waitForFunction(`((shadow) => Boolean(shadow && (${check})))(${shadow})`, { timeout: 15_000 })
    .catch(async (error: unknown) => {
      throw new Error(
        `${what} never happened; the widget shows: ${(await widgetText(page, scope)).slice(0, 600)}`,
        {
          cause: error,
        },
      )
    })
}

/** Types into the widget's composer and presses Enter, as a visitor would. */
const say = (page: Page, scope: string, text: string) =>
  page.evaluate(
    (where, message) => {
      const input = document.querySelector(`${where} parley-widget`)?.shadowRoot?.querySelector('textarea')
      if (!input) throw new Error('no composer')
      input.value = message
      input.dispatchEvent(new Event('input', { bubbles: true }))
      input.dispatchEvent(new KeyboardEvent('keydown', { key: 'Enter', bubbles: true }))
    },
    scope,
    text,
  )

const signUp = async (page: Page) => {
  await page.goto(`${server.url}/studio/`)
  await clickText(page, 'button', 'Create an account')
  await fill(page, '#organizationName', 'Tryit Shop')
  await fill(page, '#name', 'Noor')
  await fill(page, '#email', `noor-${Date.now()}@shop.example.com`)
  await fill(page, '#password', 'correct horse battery staple')
  await clickText(page, 'button', 'Create account')
  await waitForText(page, 'No agents yet')
}

const newAgent = async (page: Page, { name, architecture }: { name: string; architecture?: string }) => {
  await page.click('nav a[href="/studio/agents"]')
  await clickText(page, 'button', 'New agent')
  if (architecture) await (await page.waitForSelector(`input[value="${architecture}"]`))?.click()
  await fill(page, '#name', name)
  await fill(page, '#systemPrompt', 'You help customers of the shop.')
  await clickText(page, 'button', 'Create agent')
  await page.waitForFunction(
    (wanted) => document.querySelector('#agent-title')?.textContent === wanted,
    {},
    name,
  )
  return (await page.$eval('#agent-id', (element) => element.textContent)) ?? ''
}

describe.skipIf(!hasBrowser)('Try it and the customiser', { timeout: 180_000 }, () => {
  it('chats with the agent on its page, follows its saved settings, and starts a voice session', async () => {
    const context = await browser.createBrowserContext()
    const page = await context.newPage()
    await page.setViewport({ width: 1024, height: 800 })
    await signUp(page)
    const agentId = await newAgent(page, { name: 'Support Bot' })

    // Not live, and no widget key anywhere: the studio's own session talks to it.
    await waitForText(page, 'only the studio can talk to it')
    // Closed until asked for: a visit to the page starts no conversation.
    expect(await page.$('.try-it parley-widget')).toBeNull()
    await clickText(page, 'button', 'Talk to it')
    await waitInWidget(page, '.try-it', "shadow.querySelector('textarea')", 'the composer')
    await say(page, '.try-it', 'Where is my order?')
    await waitInWidget(
      page,
      '.try-it',
      "[...shadow.querySelectorAll('.message')].some((m) => m.textContent.includes('Your order ships tomorrow.'))",
      'the reply',
    )
    const conversation = await server.ctx.db
      .selectFrom('conversations')
      .select(['id', 'api_key_id'])
      .where('agent_id', '=', agentId)
      .executeTakeFirstOrThrow()
    expect(conversation.api_key_id).toBeNull()
    // The token is a property the studio set, never markup.
    expect(await page.$eval('.try-it', (element) => element.innerHTML)).not.toContain('eyJ')
    await expectGoodPage(page, 'agent-try-it')

    // A saved setting: the panel re-reads the agent, says so, and a reset starts over with it.
    await fill(page, '#name', 'Order Helper')
    await clickText(page, 'button', 'Save settings')
    await waitForText(page, 'Saved.')
    // Saved to the draft: the widget talks to the live version until it is published.
    await waitForText(page, 'Saved but not live yet')
    await clickText(page, 'button', 'Publish')
    await waitForText(page, 'Your settings match the live version')
    await waitForText(page, 'Settings saved: replies follow them')
    await clickText(page, 'button', 'Reset conversation')
    await waitInWidget(
      page,
      '.try-it',
      "shadow.querySelector('.title')?.textContent === 'Order Helper' && !shadow.querySelector('.user')",
      'a new conversation with the saved name',
    )
    expect(await page.$('.try-it [role="status"].try-it-note')).toBeNull()
    const ended = await server.ctx.db
      .selectFrom('conversations')
      .select('status')
      .where('id', '=', conversation.id)
      .executeTakeFirstOrThrow()
    expect(ended.status).not.toBe('active')

    // A saved, unpublished name: ticked, the panel talks to the draft in a conversation of its own.
    await fill(page, '#name', 'Draft Helper')
    await clickText(page, 'button', 'Save settings')
    await waitForText(page, 'Saved but not live yet')
    const draftSession = page.waitForResponse(
      (response) => response.url().endsWith('/v1/chat/sessions') && response.request().method() === 'POST',
    )
    await clickText(page, 'label', 'Talk to the draft')
    await waitForText(page, 'Replies use the saved draft')
    const opened = await draftSession
    expect(JSON.parse(opened.request().postData() ?? '{}')).toMatchObject({ agent_version: 'draft' })
    await waitInWidget(
      page,
      '.try-it',
      "shadow.querySelector('.title')?.textContent === 'Draft Helper'",
      'the draft conversation',
    )
    const drafted = await server.ctx.db
      .selectFrom('conversations')
      .select(['agent_name', 'agent_draft'])
      .where('id', '=', ((await opened.json()) as { conversation_id: string }).conversation_id)
      .executeTakeFirstOrThrow()
    expect(drafted).toEqual({ agent_name: 'Draft Helper', agent_draft: true })

    // Published with a note: the history shows it live with its changes; version 2 restores to the draft.
    await fill(page, '#version-note', 'Friendlier name')
    await clickText(page, 'button', 'Publish')
    await waitForText(page, 'Your settings match the live version 3')
    await waitForText(page, 'Friendlier name', '#versions')
    await clickText(page, 'button', 'Changes')
    await waitForText(page, 'Draft Helper', '#versions ol')
    await clickText(page, 'button', 'Restore to draft')
    await waitForText(page, 'Saved but not live yet: visitors still get version 3')

    // A voice agent opens on the microphone; the call is made with the studio token.
    const voiceId = await newAgent(page, { name: 'Phone Bot', architecture: 'pipeline' })
    await clickText(page, 'button', 'Talk to it')
    await waitInWidget(page, '.try-it', `shadow.querySelector('[part="voice-start"]')`, 'the microphone')
    const voiceSession = page.waitForResponse((response) =>
      response.url().endsWith('/v1/chat/voice-sessions'),
    )
    await page.evaluate(() =>
      (
        document
          .querySelector('.try-it parley-widget')
          ?.shadowRoot?.querySelector('[part="voice-start"]') as HTMLButtonElement | null
      )?.click(),
    )
    const answered = await voiceSession
    expect(answered.request().headers()['x-studio-token']).toBe(
      await page.evaluate(() => JSON.parse(localStorage.getItem('parley.studio.session') ?? '{}').token),
    )
    expect(answered.request().headers()['x-api-key']).toBeUndefined()
    expect(answered.status()).toBe(200)
    expect(((await answered.json()) as { room_name: string }).room_name).toContain(`agent_${voiceId}_`)

    // Its test runs are the voice worker's: the Tests card says so while the run waits for one,
    // and follows the run the worker reports (the worker's own side: agent/src/test-runner.test.ts).
    const created = await server.request(`/v1/agents/${voiceId}/tests`, {
      method: 'POST',
      headers: { authorization: `Bearer ${answered.request().headers()['x-studio-token'] ?? ''}` },
      json: {
        name: 'Says when it ships',
        visitor: { kind: 'script', turns: ['When does my order ship?'] },
        expectations: [{ type: 'must_say', text: 'tomorrow' }],
      },
    })
    expect(created.status).toBe(201)
    await page.reload()
    await waitForText(page, 'Says when it ships', '#tests')
    await clickText(page, 'button', 'Run on the live version')
    await waitForText(page, 'waiting for the voice worker', '#tests')
    const worker = async (path: string, body: unknown) => {
      const response = await server.request(path, {
        method: 'POST',
        headers: { authorization: `Bearer ${WORKER_TOKEN}` },
        json: body,
      })
      expect(response.status).toBe(200)
      return ((await response.json()) as { data: { runId: string; testId: string; claimId: string } }).data
    }
    const claimed = await worker('/v1/worker/agent-test-runs/claim', {})
    await waitForText(page, 'run by the voice worker', '#tests')
    await worker(`/v1/worker/agent-test-runs/${claimed.runId}/cases/${claimed.testId}/result`, {
      claimId: claimed.claimId,
      transcript: [
        { role: 'visitor', content: 'When does my order ship?' },
        { role: 'agent', content: 'Your order ships tomorrow.' },
      ],
      usage: { inputTokens: 40, outputTokens: 6 },
      error: null,
    })
    await waitForText(page, '1 of 1 done, 1 passed', '#tests')
    await context.close()
  })

  it('customises the widget with a live preview, and the copied tag shows the same widget', async () => {
    const context = await browser.createBrowserContext()
    const page = await context.newPage()
    await recordClipboard(page)
    await page.setViewport({ width: 1024, height: 800 })
    await signUp(page)
    const agentId = await newAgent(page, { name: 'Shop Helper' })
    await clickText(page, 'button', 'Make it live')
    await waitForText(page, 'Take it offline')
    await clickText(page, 'a', 'Put it on your website')
    await page.waitForSelector('.preview-stage parley-widget')

    // An accent that is no colour is named under its field, and the tag cannot be copied.
    await fill(page, '#accent', 'not a colour')
    await page.waitForSelector('#accent-problem')
    expect(await page.$eval('#accent', (element) => element.getAttribute('aria-invalid'))).toBe('true')
    await fill(page, '#accent', '#0f766e')
    await page.select('#position', 'start')
    await page.select('#widgetLanguage', 'ur')
    await clickText(page, 'button', 'Add a starter prompt')
    await fill(page, '#suggestion-0', 'Where is my order?')
    await clickText(page, 'button', 'Add a starter prompt')
    await clickText(page, 'button', 'Add a starter prompt')
    await fill(page, '#suggestion-1', "What's on sale?")
    await page.click('button[aria-label="Remove starter prompt 3"]')
    expect(await page.$('#accent-problem')).toBeNull()
    const prompts = ['Where is my order?', "What's on sale?"]

    // The preview is the real widget with those choices.
    const preview = await page.$eval('.preview-stage parley-widget', (element) =>
      Object.fromEntries(element.getAttributeNames().map((name) => [name, element.getAttribute(name)])),
    )
    expect(preview).toMatchObject({
      'agent-id': agentId,
      position: 'bottom-start',
      accent: '#0f766e',
      lang: 'ur',
      suggestions: JSON.stringify(prompts),
    })
    await page.evaluate(() =>
      (document.querySelector('.preview-stage parley-widget') as HTMLElement & { open: () => void }).open(),
    )
    const shows = `shadow.querySelector('.root')?.getAttribute('dir') === 'rtl' &&
      shadow.querySelector('.root')?.style.getPropertyValue('--parley-accent') === '#0f766e' &&
      shadow.querySelector('.floating.start') !== null &&
      [...shadow.querySelectorAll('.suggestion')].map((button) => button.textContent).join('|') === ${JSON.stringify(prompts.join('|'))}`
    await waitInWidget(page, '.preview-stage', shows, 'the preview with the choices')

    await fill(page, '#keyName', 'Shop website')
    await fill(page, '#allowedDomains', 'localhost')
    await clickText(page, 'button', 'Create key and script tag')
    await page.waitForSelector('#snippet')
    const shown = (await page.$eval('#snippet', (element) => element.textContent)) ?? ''
    expect(shown).toContain(`data-agent-id="${agentId}"`)
    expect(shown).toMatch(/data-key="tk_widget_[\w-]+"/)
    expect(shown).toContain('data-position="bottom-start"')
    expect(shown).toContain('data-accent="#0f766e"')
    expect(shown).toContain('data-lang="ur"')
    expect(shown).toContain(`data-suggestions='["Where is my order?","What&#39;s on sale?"]'`)
    await clickText(page, 'button', 'Copy')
    await waitForText(page, 'Copied')
    const snippet = await copiedText(page)
    expect(snippet).toBe(shown)
    await expectGoodPage(page, 'install-customiser')

    // The owner's page on the key's domain, with the copied tag: the same widget.
    const shop = await context.newPage()
    await openOwnerPage(
      shop,
      `${server.url}/shop`,
      `<!doctype html><html lang="en"><body><h1>Tryit Shop</h1>${snippet}</body></html>`,
    )
    await shop.waitForFunction(() => {
      const widget = document.querySelector('parley-widget') as (HTMLElement & { open?: () => void }) | null
      if (!widget?.shadowRoot || !widget.open) return false
      widget.open()
      return true
    })
    await waitInWidget(shop, 'body', shows, 'the owner page widget with the choices')
    await shop.screenshot({ path: join(screenshots, 'shop-customised.png') })
    await context.close()
  })
})
