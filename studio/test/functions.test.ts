import type { Browser, Page } from 'puppeteer-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type HttpTarget, respondJson, startHttpTarget } from '../../server/test/helpers/http-target.ts'
import { startTestServer, type TestServer } from '../../server/test/helpers/test-server.ts'
import { clickText, expectGoodPage, fill, hasBrowser, launchBrowser, textOf, waitForText } from './browser.ts'

/**
 * The agent page's custom functions and the settings around them, in Debian's Chromium against a
 * real server: an owner adds a function (the parameters' JSON Schema is checked as it is typed),
 * test-calls it against a real endpoint (loopback, allowed by OUTBOUND_ALLOW_HOSTS as in the
 * server's function tests) and reads the answer; then sets handoff targets, webhook events, an
 * analysis schema and a webhook signing secret. axe-core light and dark, and 375 px, on the way.
 */

let server: TestServer
let shop: HttpTarget
let browser: Browser

beforeAll(async () => {
  if (!hasBrowser) return
  shop = await startHttpTarget((request, response) =>
    respondJson(response, 200, { order: JSON.parse(request.body || '{}').orderNumber, status: 'shipped' }),
  )
  server = await startTestServer({ env: { OUTBOUND_ALLOW_HOSTS: shop.hostAndPort } })
  browser = await launchBrowser()
})
afterAll(async () => {
  await browser?.close()
  await server?.destroy()
  await shop?.close()
})

const createAgent = async (page: Page, name: string) => {
  await page.click('nav a[href="/studio/agents"]')
  await clickText(page, 'button', 'New agent')
  await fill(page, '#name', name)
  await fill(page, '#systemPrompt', `You are ${name} of Northwind Shop.`)
  await clickText(page, 'button', 'Create agent')
  await page.waitForSelector('#agent-title')
  await waitForText(page, name, '#agent-title')
  return (await textOf(page, '#agent-id')) ?? ''
}

const VALID_PARAMETERS =
  '{"type": "object", "properties": {"orderNumber": {"type": "string"}}, "required": ["orderNumber"]}'

describe.skipIf(!hasBrowser)(
  'custom functions and the agent settings around them',
  { timeout: 120_000 },
  () => {
    it('adds a function with a checked schema, test-calls it, and sets handoff and webhooks', async () => {
      const context = await browser.createBrowserContext()
      const page = await context.newPage()
      page.on('dialog', (dialog) => void dialog.accept())
      await page.setViewport({ width: 1024, height: 800 })
      await page.goto(`${server.url}/studio/`)
      await clickText(page, 'button', 'Create an account')
      await fill(page, '#organizationName', 'Northwind Shop')
      await fill(page, '#name', 'Ada')
      await fill(page, '#email', `ada-${Date.now()}@shop.example.com`)
      await fill(page, '#password', 'correct horse battery staple')
      await clickText(page, 'button', 'Create account')
      await waitForText(page, 'No agents yet')
      const billingId = await createAgent(page, 'Billing Bot')
      const supportId = await createAgent(page, 'Support Bot')
      await waitForText(page, 'No custom functions yet.')

      // The parameters are checked as they are typed: the JSON first (line and column), then the schema.
      await clickText(page, 'button', 'Add a function')
      await fill(page, '#fn-label', 'Look up an order')
      expect(await page.$eval('#fn-name', (element) => (element as HTMLInputElement).value)).toBe(
        'look_up_an_order',
      )
      await fill(page, '#fn-description', 'Finds where an order is by its number')
      await fill(page, '#fn-endpoint', `${shop.origin}/orders`)
      await fill(page, '#fn-headers', 'X-Shop-Token: secret-shop-token')
      await fill(page, '#fn-parameters', '{"type": "object",}')
      await waitForText(page, 'Line 1, column 19:', '#fn-parameters-check')
      expect(await page.$eval('#fn-parameters', (element) => element.getAttribute('aria-invalid'))).toBe(
        'true',
      )
      expect(
        await page.$eval('#fn-parameters', (element) => element.getAttribute('aria-describedby')),
      ).toContain('fn-parameters-check')
      await fill(
        page,
        '#fn-parameters',
        '{"type": "object", "properties": {"orderNumber": {"type": "text"}}}',
      )
      await waitForText(
        page,
        'parameters.properties.orderNumber.type must be one of string, number, boolean, array, object',
        '#fn-parameters-check',
      )
      await expectGoodPage(page, 'function-form-invalid')
      await fill(page, '#fn-parameters', VALID_PARAMETERS)
      await page.waitForFunction(() => document.querySelector('#fn-parameters-check')?.textContent === '')
      expect(await page.$eval('#fn-parameters', (element) => element.getAttribute('aria-invalid'))).toBe(
        'false',
      )
      await clickText(page, 'button', 'Add function')

      // Added, and the agent may call it (function calling turned on with it).
      await page.waitForSelector('li.function')
      expect(await textOf(page, 'li.function')).toContain('Look up an order')
      await page.waitForFunction(() =>
        Boolean(
          (document.querySelector('li.function input[type="checkbox"]') as HTMLInputElement | null)?.checked,
        ),
      )
      await page.waitForFunction(
        () =>
          (document.querySelector('#functionCallingEnabled') as HTMLInputElement | null)?.checked === true,
      )

      // The test call: arguments checked against the parameters as typed, then the endpoint's answer.
      await clickText(page, 'button', 'Test call')
      await page.waitForSelector('#test-arguments')
      await fill(page, '#test-arguments', '{"orderNumber": 17}')
      await waitForText(page, 'arguments.orderNumber', '#test-arguments-check')
      await fill(page, '#test-arguments', '{"orderNumber": "A17"}')
      await page.waitForFunction(() => document.querySelector('#test-arguments-check')?.textContent === '')
      await clickText(page, 'button', 'Call it')
      await waitForText(page, 'HTTP 200', '.test-answer')
      expect(await textOf(page, '.test-body')).toBe(
        JSON.stringify({ order: 'A17', status: 'shipped' }, null, 2),
      )
      expect(await textOf(page, '.test-answer')).toContain('The agent would be given this JSON.')
      expect(shop.received.at(-1)).toMatchObject({
        method: 'POST',
        url: '/orders',
        headers: { 'x-shop-token': 'secret-shop-token' },
        body: '{"orderNumber":"A17"}',
      })
      await expectGoodPage(page, 'agent-functions')

      // Handoff to the other text agent, fewer webhook events, an analysis schema; a refused webhook
      // URL is named under its field in the API's words.
      await page.click(`input[name="handoffAgentIds"][value="${billingId}"]`)
      await page.click('input[name="webhookEvents"][value="batch.completed"]')
      await fill(page, '#analysisSchema', '{"type": "array"}')
      await waitForText(page, "analysisSchema.type must be 'object'", '#analysisSchema-check')
      await fill(
        page,
        '#analysisSchema',
        '{"type": "object", "properties": {"orderNumber": {"type": "string"}}}',
      )
      await page.waitForFunction(() => document.querySelector('#analysisSchema-check')?.textContent === '')
      await fill(page, '#webhookUrl', 'http://hooks.shop.example.com/parley')
      await clickText(page, 'button', 'Save settings')
      await page.waitForSelector('#webhookUrl-problem')
      expect(await textOf(page, '#webhookUrl-problem')).toBe('webhookUrl must be an https URL')
      await fill(page, '#webhookUrl', `${shop.origin}/parley`)
      await clickText(page, 'button', 'Save settings')
      await waitForText(page, 'Saved.')
      await waitForText(page, 'Saved but not live yet')
      await clickText(page, 'button', 'Publish')
      await waitForText(page, 'Your settings match the live version')
      const saved = await (
        await server.request(`/v1/agents/${supportId}`, { token: await tokenOf(page) })
      ).json()
      expect(saved.data).toMatchObject({
        handoffAgentIds: [billingId],
        webhookEvents: [
          'chat.ended',
          'call.ended',
          'conversation.analyzed',
          'call.analyzed',
          'batch.failed',
          'call.transferred',
          'contact.opted_out',
        ],
        webhookUrl: `${shop.origin}/parley`,
        analysisSchema: { type: 'object', properties: { orderNumber: { type: 'string' } } },
        functionCallingEnabled: true,
      })

      // The signing secret is shown once, when made.
      await clickText(page, 'button', 'Make a new signing secret')
      await page.waitForSelector('#webhook-secret')
      expect(await textOf(page, '#webhook-secret')).toMatch(/^whsec_[\w-]{20,}$/)
      await expectGoodPage(page, 'agent-settings-more')

      // After a reload, the settings are as saved and the function is still there.
      await page.reload()
      await page.waitForSelector('li.function')
      expect(
        await page.$eval(
          `input[name="handoffAgentIds"][value="${billingId}"]`,
          (box) => (box as HTMLInputElement).checked,
        ),
      ).toBe(true)
      expect(
        await page.$eval(
          'input[name="webhookEvents"][value="batch.completed"]',
          (box) => (box as HTMLInputElement).checked,
        ),
      ).toBe(false)
      expect(await page.$('#webhook-secret')).toBeNull()

      // Deleting asks first (accepted here), then the list is empty.
      await clickText(page, 'button', 'Delete')
      await waitForText(page, 'No custom functions yet.')
      await context.close()
    })
  },
)

/** The studio session's token, as the page keeps it. */
const tokenOf = async (page: Page) =>
  page.evaluate(
    () => (JSON.parse(localStorage.getItem('parley.studio.session') ?? '{}') as { token: string }).token,
  )
