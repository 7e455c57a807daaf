import { sql } from 'kysely'
import type { Browser } from 'puppeteer-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startTestServer, type TestServer } from '../../server/test/helpers/test-server.ts'
import { clickText, expectGoodPage, fill, hasBrowser, launchBrowser, waitForText } from './browser.ts'

/**
 * The knowledge page in Debian's Chromium against a real server (its ingest jobs run in it): an
 * owner adds a text source and watches it become ready, tries a question and reads the passages
 * found, and attaches the source to an agent, which the API then shows. axe-core light and dark,
 * right to left and 375 px on the way.
 */

let server: TestServer
let browser: Browser

beforeAll(async () => {
  if (!hasBrowser) return
  server = await startTestServer()
  browser = await launchBrowser()
}, 120_000)
afterAll(async () => {
  await browser?.close()
  await server?.destroy()
})

describe.skipIf(!hasBrowser)('the knowledge page', { timeout: 180_000 }, () => {
  it('adds a text source, watches it become ready, tries a question and attaches it to an agent', async () => {
    const context = await browser.createBrowserContext()
    const page = await context.newPage()
    await page.setViewport({ width: 1024, height: 800 })
    await page.goto(`${server.url}/studio/`)
    await clickText(page, 'button', 'Create an account')
    await fill(page, '#organizationName', 'Northwind Shop')
    await fill(page, '#name', 'Ada')
    await fill(page, '#email', `ada-${Date.now()}@shop.example.com`)
    await fill(page, '#password', 'correct horse battery staple')
    await clickText(page, 'button', 'Create account')
    await waitForText(page, 'No agents yet')

    // An agent to attach the source to.
    await clickText(page, 'button', 'New agent')
    await fill(page, '#name', 'Shop Helper')
    await fill(page, '#systemPrompt', 'You help the shop’s visitors.')
    await clickText(page, 'button', 'Create agent')
    await page.waitForSelector('#agent-title')
    const agentId = await page.$eval('#agent-id', (element) => (element as HTMLElement).innerText.trim())

    await page.click('nav a[href="/studio/knowledge"]')
    await waitForText(page, 'No sources yet.')
    await expectGoodPage(page, 'knowledge-empty')

    await page.select('#kind', 'text')
    await fill(page, '#title', 'Shop policies')
    await fill(
      page,
      '#text',
      '# Opening hours\n\nWe are open Monday to Friday from nine to five.\n\n# Returns\n\nKettles may be returned within thirty days.',
    )
    await clickText(page, 'button', 'Add')
    // Queued, then ready with its passages (the page polls while a source is busy).
    await waitForText(page, 'Shop policies', 'ul.list')
    await page.waitForFunction(() => document.querySelector('ul.list')?.textContent?.includes('Ready:'), {
      timeout: 60_000,
    })
    expect(await page.$eval('ul.list [role="status"]', (element) => element.textContent)).toMatch(
      /^Ready: \d+ passages$/,
    )

    await fill(page, '#q', 'When are you open?')
    await clickText(page, 'button', 'Search')
    await waitForText(page, 'Shop policies › Opening hours', 'form ol')
    await waitForText(page, 'We are open Monday to Friday from nine to five.', 'form ol')

    // Attached to the agent through its checkbox; the API shows it.
    await waitForText(page, 'Agents answering from these sources')
    const box = await page.waitForSelector('fieldset input[type="checkbox"]')
    await box?.click()
    await expectGoodPage(page, 'knowledge-ready')
    // The knowledge area's tables are its own: read with SQL here.
    const { rows } = await sql<{ id: string }>`
      select id from knowledge_sources where title = 'Shop policies'`.execute(server.ctx.db)
    const attached = async () =>
      (
        await server.ctx.db
          .selectFrom('agents')
          .select('knowledge_source_ids')
          .where('id', '=', agentId)
          .executeTakeFirstOrThrow()
      ).knowledge_source_ids
    await expect.poll(attached, { timeout: 15_000 }).toEqual([rows[0]?.id])
    // Shown attached after a reload too.
    await page.reload()
    await page.waitForSelector('fieldset input[type="checkbox"]')
    expect(
      await page.$eval('fieldset input[type="checkbox"]', (element) => (element as HTMLInputElement).checked),
    ).toBe(true)
    await context.close()
  })
})
