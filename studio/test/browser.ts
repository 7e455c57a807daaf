import { existsSync, mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import puppeteer, { type Page } from 'puppeteer-core'
import { expect } from 'vitest'
import { checkStudioPage } from './studio-pages.ts'

/**
 * What the studio's browser tests share: Debian's Chromium (required in CI, where
 * PARLEY_REQUIRE_BROWSER is set; the tests skip without it elsewhere), where screenshots go, and
 * the few page actions every test uses.
 */
export const CHROMIUM = '/usr/bin/chromium'
export const hasBrowser = existsSync(CHROMIUM)
if (!hasBrowser && process.env.PARLEY_REQUIRE_BROWSER)
  throw new Error(`Chromium is required (PARLEY_REQUIRE_BROWSER) but ${CHROMIUM} is missing`)

export const screenshots = join(fileURLToPath(new URL('../..', import.meta.url)), 'test-output', 'studio')

/** Headless Chromium for a test file (and the screenshots' folder); `args` adds to the defaults. */
export const launchBrowser = (args: string[] = []) => {
  mkdirSync(screenshots, { recursive: true })
  return puppeteer.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', ...args],
  })
}

/**
 * Opens an owner's own page at `url` (the origin their key allows) holding `html`: the page is
 * answered in the browser, as the owner's site would serve it, and every other request (the
 * widget's script, the API) goes to the server. A page of Parley's would not do: its API answers
 * carry a CSP that loads nothing, and its pages carry their own.
 */
export const openOwnerPage = async (page: Page, url: string, html: string) => {
  await page.setRequestInterception(true)
  page.on('request', (request) => {
    if (request.isInterceptResolutionHandled()) return
    if (request.url() === url) void request.respond({ status: 200, contentType: 'text/html', body: html })
    else void request.continue()
  })
  await page.goto(url)
}

/** Types `value` into the field, replacing what it held. */
export const fill = async (page: Page, selector: string, value: string) => {
  await page.waitForSelector(selector)
  // Emptied with an input event, as typing would: a field whose value the page keeps (a Preact
  // controlled input) would otherwise get its old value back at its next render, under the typing.
  await page.$eval(selector, (element) => {
    ;(element as HTMLInputElement).value = ''
    element.dispatchEvent(new Event('input', { bubbles: true }))
  })
  await page.type(selector, value)
}

/**
 * Clicks the first enabled `tag` whose text contains `text`, waiting until there is one: a button
 * the page has disabled while it finishes its last action (the campaign's Resume while the Pause
 * before it reloads the contacts) would take the click and do nothing.
 */
export const clickText = async (page: Page, tag: string, text: string) => {
  const selector = `::-p-xpath(//${tag}[contains(., ${JSON.stringify(text)})][not(@disabled)])`
  // A render between finding the element and clicking it can replace it: found again, up to thrice.
  for (let attempt = 1; ; attempt++) {
    const element = await page.waitForSelector(selector, { visible: true })
    try {
      await element?.click()
      return
    } catch (error) {
      if (attempt === 3) throw error
    }
  }
}

export const textOf = (page: Page, selector: string) =>
  page.$eval(selector, (element) => (element as HTMLElement).innerText.trim())

/** Waits until `text` shows in `selector` (the page by default); if it never does, says what did. */
export const waitForText = async (page: Page, text: string, selector = 'body') => {
  try {
    await page.waitForFunction(
      (wanted, where) => (document.querySelector(where) as HTMLElement | null)?.innerText.includes(wanted),
      { timeout: 15_000 },
      text,
      selector,
    )
  } catch (error) {
    const shown = await page.evaluate(
      (where) => (document.querySelector(where) as HTMLElement | null)?.innerText ?? '',
      selector,
    )
    throw new Error(
      `"${text}" never showed in ${selector} on ${page.url()}; it says: ${shown.slice(-1500)}`,
      {
        cause: error,
      },
    )
  }
}

/** axe-core, light, dark and right to left, and 375 px on the page as it is; screenshots of each. */
export const expectGoodPage = async (page: Page, name: string) => {
  expect(await checkStudioPage(page, { name, directory: screenshots })).toEqual([])
}

/**
 * Records what the page's copy buttons hand the clipboard (read back with copiedText): the system
 * clipboard is one for every browser of a parallel test run, so reading it back could race.
 */
export const recordClipboard = (page: Page) =>
  page.evaluateOnNewDocument(() => {
    Object.defineProperty(navigator, 'clipboard', {
      value: {
        writeText: async (text: string) => {
          ;(window as unknown as { copied: string }).copied = text
        },
      },
    })
  })

export const copiedText = (page: Page) =>
  page.evaluate(() => (window as unknown as { copied?: string }).copied)
