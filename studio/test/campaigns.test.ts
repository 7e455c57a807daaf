import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { defaultRetryPolicy } from '@parley/shared'
import type { Browser, ElementHandle, Page } from 'puppeteer-core'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { agentJoinsAnswered, hangUpAnswered } from '../../server/test/helpers/batch-dialer.ts'
import { setBalanceMicros } from '../../server/test/helpers/billing.ts'
import { type FakeLiveKit, startFakeLiveKit } from '../../server/test/helpers/fake-livekit.ts'
import { startTestServer, type TestServer } from '../../server/test/helpers/test-server.ts'
import { clickText, expectGoodPage, fill, hasBrowser, launchBrowser, textOf, waitForText } from './browser.ts'

/**
 * The campaigns area in Debian's Chromium against a real server and the fake LiveKit: an owner
 * adds the number a voice agent calls from, uploads a call list with a bad row, sees the preview
 * (the contacts, the skipped row and why, the estimate), creates the campaign and watches it over
 * its progress stream, pausing and resuming it, to completion, with each contact's outcome. The
 * fake LiveKit answers the dials; the test plays the agent joining and the callee hanging up, as
 * the server's batch tests do. Every page passes checkStudioPage.
 */

let server: TestServer
let livekit: FakeLiveKit
let browser: Browser
let files: string

beforeAll(async () => {
  if (!hasBrowser) return
  files = mkdtempSync(join(tmpdir(), 'parley-campaigns-'))
  livekit = await startFakeLiveKit()
  // The dialer sweeps often and retries soon, so a job runs its course in a moment.
  server = await startTestServer({ env: { ...livekit.env, BATCH_TICK_MS: '50', BATCH_RETRY_BASE_MS: '10' } })
  browser = await launchBrowser()
})
afterAll(async () => {
  livekit?.releaseSip()
  await browser?.close()
  await server?.destroy()
  await livekit?.close()
  if (files) rmSync(files, { recursive: true, force: true })
})

const rowsOf = (page: Page, selector: string) =>
  page.$$eval(`${selector} tbody tr`, (rows) =>
    rows.map((row) => [...row.querySelectorAll('td')].map((cell) => cell.innerText.trim())),
  )

// Two callees answer (their dials ring until released), one is busy.
const [ada, grace, busy] = ['+14155551001', '+14155551002', '+14155551003']

describe.skipIf(!hasBrowser)('the studio’s campaigns', { timeout: 120_000 }, () => {
  it('uploads a CSV, previews it, creates the campaign and follows it to completion', async () => {
    const context = await browser.createBrowserContext()
    const page = await context.newPage()
    await page.setViewport({ width: 1024, height: 800 })
    page.on('dialog', (dialog) => void dialog.accept())

    await page.goto(`${server.url}/studio/`)
    await clickText(page, 'button', 'Create an account')
    await fill(page, '#organizationName', 'Call Shop')
    await fill(page, '#name', 'Hana')
    await fill(page, '#email', `hana-${Date.now()}@shop.example.com`)
    await fill(page, '#password', 'correct horse battery staple')
    await clickText(page, 'button', 'Create account')
    await waitForText(page, 'No agents yet')
    const organizationId = await page.evaluate(
      () => JSON.parse(localStorage.getItem('parley.studio.session') ?? '{}').organization.id as string,
    )
    // Credits, as an operator grants them; the preview sets the estimate against them.
    await setBalanceMicros(server, { organizationId, micros: 5_000_000 })

    // A voice agent with the platform's speech providers (no keys of the organization's own), live.
    await clickText(page, 'button', 'New agent')
    await (await page.waitForSelector('input[value="pipeline"]'))?.click()
    await page.waitForSelector('#stt')
    await fill(page, '#name', 'Renewals Caller')
    await fill(page, '#systemPrompt', 'You remind {{name}} that the {{plan}} plan renews soon.')
    await clickText(page, 'button', 'Create agent')
    await page.waitForSelector('#agent-title')
    await clickText(page, 'button', 'Make it live')
    await waitForText(page, 'Take it offline')

    // The number it calls from.
    await page.click('nav a[href="/studio/campaigns"]')
    await waitForText(page, 'No campaigns yet')
    await expectGoodPage(page, 'campaigns-empty')
    await clickText(page, 'a', 'Phone numbers')
    await waitForText(page, 'No phone numbers yet')
    await fill(page, '#number', '+1 415 555 0100')
    await fill(page, '#sipTrunkId', 'ST_outbound')
    const agentOption = await page.waitForSelector('#outboundAgentId option:nth-child(2)')
    await page.select('#outboundAgentId', (await agentOption?.evaluate((option) => option.value)) ?? '')
    await clickText(page, 'button', 'Add number')
    // The API's own words, next to the field it names.
    await page.waitForSelector('#number-problem')
    expect(await page.$eval('#number', (element) => element.getAttribute('aria-invalid'))).toBe('true')
    await fill(page, '#number', '+14155550100')
    await clickText(page, 'button', 'Add number')
    await waitForText(page, 'Number added.')
    await waitForText(page, 'Calls with: Renewals Caller')
    // Its label changed; a second number added, then deleted (after the confirmation).
    await page.click('button[aria-label="Change +14155550100"]')
    await fill(page, '#editLabel', 'Renewals line')
    await expectGoodPage(page, 'phone-number-edit')
    await clickText(page, 'button', 'Save')
    await waitForText(page, '+14155550100 saved.')
    expect(await textOf(page, '.numbers')).toContain('+14155550100 Renewals line')
    await fill(page, '#number', '+14155550101')
    await fill(page, '#sipTrunkId', 'ST_outbound')
    await clickText(page, 'button', 'Add number')
    await waitForText(page, 'Calls with: No agent')
    await page.click('button[aria-label="Delete +14155550101"]')
    await waitForText(page, '+14155550101 deleted.')
    expect(await textOf(page, '.numbers')).not.toContain('+14155550101')
    await expectGoodPage(page, 'phone-numbers')

    // The call list: one bad phone among three good ones.
    const csv = join(files, 'renewals.csv')
    writeFileSync(
      csv,
      [
        'phone,name,plan',
        `${ada},Ada,Gold`,
        `${grace},Grace,Silver`,
        '415-555-0199,Bad Number,Gold',
        `${busy},Busy Bee,Bronze`,
      ].join('\n'),
    )
    livekit.scriptSip(ada, { result: 'answered', hold: true })
    livekit.scriptSip(grace, { result: 'answered', hold: true })
    livekit.scriptSip(busy, { result: 'busy' })

    await page.click('nav a[href="/studio/campaigns"]')
    await clickText(page, 'a', 'New campaign')
    await fill(page, '#name', 'Spring renewals')
    const fileInput = await page.waitForSelector('input[type="file"]#file')
    await (fileInput as ElementHandle<HTMLInputElement> | null)?.uploadFile(csv)
    await fill(page, '#maxAttempts', '1')
    // Retries by outcome start at the shared schema's defaults, each said next to its fields.
    const shownPolicy = await page.$$eval('fieldset.retry-rule', (rules) =>
      rules.map((rule) => {
        const value = (suffix: string) =>
          (rule.querySelector(`[id$="-${suffix}"]`) as HTMLInputElement | HTMLSelectElement).value
        const unit = { minutes: 1, hours: 60, days: 1440 }[value('unit') as 'minutes' | 'hours' | 'days']
        const outcome = (rule.querySelector('input') as HTMLInputElement).id.replace(/^retry-|-tries$/g, '')
        return [outcome, { tries: Number(value('tries')), afterMinutes: Number(value('after')) * unit }]
      }),
    )
    expect(Object.fromEntries(shownPolicy)).toEqual(defaultRetryPolicy)
    expect(await textOf(page, 'fieldset.retry-policy')).toContain('Default: 2 more tries after 10 minutes')
    expect(await textOf(page, 'fieldset.retry-policy')).toContain(
      'Never retried: Call finished, Transferred to a person, Opted out, Declined.',
    )
    // Out of the schema's bounds: the browser refuses it before any request.
    await fill(page, '#retry-busy-tries', '11')
    expect(
      await page.$eval('#retry-busy-tries', (input) => (input as HTMLInputElement).validity.rangeOverflow),
    ).toBe(true)
    // The owner's policy: busy never again, no answer 3 more after 45 minutes, voicemail 2 after 2 days.
    await fill(page, '#retry-busy-tries', '0')
    await fill(page, '#retry-no_answer-tries', '3')
    await page.select('#retry-no_answer-unit', 'minutes')
    await fill(page, '#retry-no_answer-after', '45')
    await fill(page, '#retry-voicemail-tries', '2')
    await fill(page, '#retry-voicemail-after', '2')
    // Calling hours first: the preview reads them back; then at any hour, as the job is made.
    await clickText(page, 'label', 'Only in calling hours')
    await page.click('input[name="windowDays"][value="fri"]')
    await clickText(page, 'button', 'Preview')
    await waitForText(
      page,
      'Calls only from 09:00 to 18:00 on Monday, Tuesday, Wednesday, Thursday, in each contact’s own time zone',
    )
    await clickText(page, 'label', 'At any hour')
    await clickText(page, 'button', 'Preview')
    await page.waitForSelector('#preview-title')
    await waitForText(page, '3 contacts will be called from +14155550100 by Renewals Caller.')
    expect(await rowsOf(page, '.preview table:not(.skipped)')).toEqual([
      ['2', ada, 'Ada', 'plan: Gold'],
      ['3', grace, 'Grace', 'plan: Silver'],
      ['5', busy, 'Busy Bee', 'plan: Bronze'],
    ])
    expect(await textOf(page, '#preview-skipped')).toBe('1 row skipped')
    expect(await rowsOf(page, '.preview table.skipped')).toEqual([
      ['4', '415-555-0199', 'Not a valid phone number (E.164, like +14155550123)'],
    ])
    // Three pipeline calls of 2 minutes at the agent's own price: its STT, LLM and TTS's catalogue
    // prices (README "Voice pricing"), $0.0169 a minute for the studio's default voice agent.
    await waitForText(page, 'Estimated cost: $0.10')
    await waitForText(page, '3 × 2 min a call × $0.0169 a minute')
    await waitForText(page, 'Your balance: $5.00')
    await waitForText(page, 'Starts as soon as it is created')
    await expectGoodPage(page, 'campaign-preview')

    await clickText(page, 'button', 'Create campaign')
    await page.waitForSelector('#campaign-title')
    expect(await textOf(page, '#campaign-title')).toBe('Spring renewals')
    // The policy in force, as the API answers it for the job: what the owner set.
    await page.waitForSelector('#retries-title')
    expect(
      await page.$$eval('dl.retry-rules > div', (rows) =>
        rows.map((row) => [row.querySelector('dt')?.textContent, row.querySelector('dd')?.textContent]),
      ),
    ).toEqual([
      ['Busy', 'Not retried'],
      ['No answer', '3 more tries after 45 minutes'],
      ['Voicemail (left or hung up)', '2 more tries after 2 days'],
      ['Phone menu', 'Not retried'],
    ])
    // Live over the stream: two calls ring, the busy one failed on its only try.
    await waitForText(page, '1 of 3 contacts done')
    expect(await textOf(page, '#campaign-status')).toBe('Calling')
    await clickText(page, 'button', 'Pause')
    await page.waitForFunction(() => document.querySelector('#campaign-status')?.textContent === 'Paused')
    expect(
      await page.$eval('.campaign-controls button:first-child', (b) => (b as HTMLButtonElement).disabled),
    ).toBe(true)
    await clickText(page, 'button', 'Resume')
    await page.waitForFunction(() => document.querySelector('#campaign-status')?.textContent === 'Calling')
    await expectGoodPage(page, 'campaign-running')

    // The callees pick up; the agent joins each call and the callee hangs up.
    const batchJobId = new URL(page.url()).pathname.split('/').at(-1) ?? ''
    livekit.releaseSip()
    await vi.waitFor(
      async () => {
        await agentJoinsAnswered(server, livekit, batchJobId)
        await hangUpAnswered(server, livekit, batchJobId)
        expect(await textOf(page, '#campaign-status')).toBe('Completed')
      },
      { timeout: 20_000, interval: 100 },
    )
    await waitForText(page, '3 of 3 contacts done')
    const outcomes = await rowsOf(page, 'table.contacts')
    // Each contact's tries, with the outcome and SIP status of each.
    expect(outcomes).toEqual([
      ['1', ada, 'Ada', 'Completed', expect.stringMatching(/^1\s+Call finished · /), 'Call finished'],
      ['2', grace, 'Grace', 'Completed', expect.stringMatching(/^1\s+Call finished · /), 'Call finished'],
      [
        '3',
        busy,
        'Busy Bee',
        'Failed',
        expect.stringMatching(/^1\s+Busy \(SIP 486\) · /),
        expect.stringMatching(/^Busy/),
      ],
    ])
    // The breakdown: how the campaign's tries ended.
    await page.reload()
    await page.waitForSelector('#outcomes-title')
    expect(await textOf(page, '.counters.outcomes')).toMatch(/Call finished\s*2\s*Busy\s*1/)
    expect(await page.$('.live-dot')).toBeNull()
    // The busy contact had its one try: retrying re-queues nobody, and says so.
    await clickText(page, 'button', 'Retry failed')
    await waitForText(page, 'No failed contact has tries left.')
    await expectGoodPage(page, 'campaign-completed')

    await page.click('nav a[href="/studio/campaigns"]')
    await waitForText(page, 'Spring renewals')
    expect(await textOf(page, '.campaigns')).toContain('3 of 3 contacts done')
    await expectGoodPage(page, 'campaigns')
    // The calls list says how each call ended.
    await page.click('nav a[href="/studio/calls"]')
    await waitForText(page, 'Busy')
    expect(await textOf(page, 'body')).toContain('Call finished')
    await context.close()
  })

  it('keeps the do-not-call list: add, import a CSV with its result, remove after a confirmation', async () => {
    const context = await browser.createBrowserContext()
    const page = await context.newPage()
    await page.setViewport({ width: 1024, height: 800 })
    page.on('dialog', (dialog) => void dialog.accept())
    await page.goto(`${server.url}/studio/`)
    await clickText(page, 'button', 'Create an account')
    await fill(page, '#organizationName', 'Quiet Shop')
    await fill(page, '#name', 'Ida')
    await fill(page, '#email', `ida-${Date.now()}@shop.example.com`)
    await fill(page, '#password', 'correct horse battery staple')
    await clickText(page, 'button', 'Create account')
    await waitForText(page, 'No agents yet')

    await page.click('nav a[href="/studio/campaigns"]')
    await clickText(page, 'a', 'Do not call')
    await waitForText(page, 'No numbers on the do-not-call list.')
    await fill(page, '#phoneNumber', '+14155550401')
    await fill(page, '#note', 'asked by email')
    await clickText(page, 'button', 'Add to the list')
    await waitForText(page, '+14155550401 added to the list.')
    expect(await textOf(page, '.numbers')).toContain('Added by hand or through the API')

    const csv = join(files, 'do-not-call.csv')
    writeFileSync(csv, 'phone\n+14155550401\n+14155550402\nnot-a-number\n')
    const fileInput = await page.$('#file')
    await (fileInput as ElementHandle<HTMLInputElement> | null)?.uploadFile(csv)
    await clickText(page, 'button', 'Import')
    await waitForText(page, 'Imported: 1 added, 1 already listed, 1 invalid.')
    await waitForText(page, 'Row 4: not-a-number')
    expect(await textOf(page, '.numbers')).toContain('+14155550402')
    await expectGoodPage(page, 'do-not-call')

    await page.click('button[aria-label="Remove +14155550401"]')
    await waitForText(page, '+14155550401 removed from the list.')
    expect(await textOf(page, '.numbers')).not.toContain('+14155550401')
    await context.close()
  })
})
