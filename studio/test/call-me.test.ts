import { randomBytes } from 'node:crypto'
import type { Browser, Page } from 'puppeteer-core'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { setBalanceMicros } from '../../server/test/helpers/billing.ts'
import { type FakeLiveKit, startFakeLiveKit } from '../../server/test/helpers/fake-livekit.ts'
import { startTestServer, type TestServer } from '../../server/test/helpers/test-server.ts'
import { clickText, expectGoodPage, fill, hasBrowser, launchBrowser, textOf, waitForText } from './browser.ts'

/**
 * "Call me" on a voice agent's page in Debian's Chromium against a real server and the fake
 * LiveKit: without a number it leads to the numbers page; with one, a bad number is caught in the
 * page, a listed one is refused with the do-not-call list's link, and a call is placed and followed
 * live: ringing and the answer (the test plays the worker reporting the callee's sip.callStatus),
 * a transcript line, then "End call" and how it ended.
 */

const WORKER_TOKEN = randomBytes(24).toString('hex')
let server: TestServer
let livekit: FakeLiveKit
let browser: Browser

beforeAll(async () => {
  if (!hasBrowser) return
  livekit = await startFakeLiveKit()
  // The test plays the worker by hand and never asks for the call's setup: without a long
  // AGENT_JOIN_TIMEOUT_SECONDS, a page check that outlasts the 15 s default on a loaded machine
  // lets the agent sweep end the ringing call ("No agent was free").
  server = await startTestServer({
    env: { ...livekit.env, WORKER_TOKEN, AGENT_JOIN_TIMEOUT_SECONDS: '3600' },
  })
  browser = await launchBrowser()
})
afterAll(async () => {
  livekit?.releaseSip()
  await browser?.close()
  await server?.destroy()
  await livekit?.close()
})

const tokenOf = (page: Page) =>
  page.evaluate(() => JSON.parse(localStorage.getItem('parley.studio.session') ?? '{}').token as string)

const worker = (path: string, json: unknown) =>
  server.request(path, { method: 'POST', token: WORKER_TOKEN, json })

describe.skipIf(!hasBrowser)('Call me on an agent’s page', { timeout: 120_000 }, () => {
  it('places a call from one of the numbers and shows its events live', async () => {
    const context = await browser.createBrowserContext()
    const page = await context.newPage()
    await page.setViewport({ width: 1024, height: 800 })
    await page.goto(`${server.url}/studio/`)
    await clickText(page, 'button', 'Create an account')
    await fill(page, '#organizationName', 'Call Me Shop')
    await fill(page, '#name', 'Rumi')
    await fill(page, '#email', `rumi-${Date.now()}@shop.example.com`)
    await fill(page, '#password', 'correct horse battery staple')
    await clickText(page, 'button', 'Create account')
    await waitForText(page, 'No agents yet')
    const organizationId = await page.evaluate(
      () => JSON.parse(localStorage.getItem('parley.studio.session') ?? '{}').organization.id as string,
    )
    await setBalanceMicros(server, { organizationId, micros: 5_000_000 })

    await clickText(page, 'button', 'New agent')
    await (await page.waitForSelector('input[value="pipeline"]'))?.click()
    await page.waitForSelector('#stt')
    await fill(page, '#name', 'Callback Agent')
    await fill(page, '#systemPrompt', 'You call {{name}} back about their order.')
    await clickText(page, 'button', 'Create agent')
    await page.waitForSelector('#agent-title')
    await clickText(page, 'button', 'Make it live')
    await waitForText(page, 'Take it offline')

    // No number yet: the way to add one.
    await waitForText(page, 'Your organization has no phone number to call from yet.', '.call-me')
    expect(await page.$eval('.call-me a', (a) => a.getAttribute('href'))).toBe(
      '/studio/campaigns/phone-numbers',
    )

    const token = await tokenOf(page)
    const studio = (path: string, json: unknown) => server.request(path, { method: 'POST', token, json })
    expect(
      (await studio('/v1/phone-numbers', { number: '+14155550100', sipTrunkId: 'ST_outbound' })).status,
    ).toBe(201)
    expect((await studio('/v1/do-not-call', { phoneNumber: '+14155550177' })).status).toBe(201)
    await page.reload()
    await page.waitForSelector('#callTo')
    expect(await textOf(page, '#callFrom')).toContain('+14155550100')

    // Not E.164: caught in the page, next to the field.
    await fill(page, '#callTo', '555-0123')
    await clickText(page, 'button', 'Call')
    await page.waitForSelector('#callTo-problem')
    expect(await page.$eval('#callTo', (input) => input.getAttribute('aria-invalid'))).toBe('true')
    // A listed number: the API's 409, with the list's link.
    await fill(page, '#callTo', '+14155550177')
    await clickText(page, 'button', 'Call')
    await waitForText(page, 'This number is on your do-not-call list.', '.call-me')
    expect(livekit.dialsTo('+14155550177')).toBe(0)

    // A call: the phone rings until the test answers it.
    const to = '+14155550178'
    livekit.scriptSip(to, { result: 'answered', hold: true })
    await fill(page, '#callTo', '+1 (415) 555-0178')
    await fill(page, '#callVariables', 'name=Ada')
    await clickText(page, 'button', 'Call')
    await page.waitForSelector('.call-me-live a')
    const callId =
      (await page.$eval('.call-me-live a', (a) => a.getAttribute('href')))?.split('/').at(-1) ?? ''
    await waitForText(page, 'Dialling…', '#call-me-status')
    await vi.waitFor(() => expect(livekit.dialsTo(to)).toBe(1))
    // The worker sees the callee's sip.callStatus and reports it.
    expect((await worker(`/v1/calls/${callId}/sip-status`, { status: 'ringing' })).status).toBe(200)
    await waitForText(page, 'Ringing…', '#call-me-status')
    await expectGoodPage(page, 'call-me-ringing')
    livekit.releaseSip()
    await waitForText(page, 'Answered: in the call', '#call-me-status')
    expect(
      (
        await worker(`/v1/calls/${callId}/transcript`, {
          lines: [{ role: 'assistant', content: 'Hello Ada' }],
        })
      ).status,
    ).toBe(200)
    await waitForText(page, 'Hello Ada', '.call-me .transcript')

    await clickText(page, 'button', 'End call')
    await waitForText(page, 'Call ended: Call finished', '#call-me-status')
    expect(livekit.callsTo('RoomService/DeleteRoom').length).toBeGreaterThan(0)
    // The form is free for another call; the End call button is gone.
    expect(await page.$('.call-me button.danger')).toBeNull()
    await expectGoodPage(page, 'call-me-ended')
    await context.close()
  })
})
