import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { join } from 'node:path'
import type { Page } from 'puppeteer-core'

/**
 * What every studio page is held to in the browser tests: axe-core finds no serious or critical
 * violation in the light scheme nor in the dark one, and the page fits a 375 px phone without
 * sideways scrolling, in English and in Urdu (right to left). Each check leaves four screenshots:
 * light, dark, right to left (Urdu) and 375 px.
 */
const axeSource = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8')

type Violation = { id: string; impact: string | null; help: string; nodes: Array<{ target: unknown[] }> }

type Axe = {
  run: (context: Document, options: { runOnly?: string[] }) => Promise<{ violations: Violation[] }>
}

/**
 * The rules a change of colour scheme can break: the same page in its other scheme differs only in
 * colours, so only these are run again there.
 */
const COLOUR_RULES = ['color-contrast', 'link-in-text-block']

/**
 * axe-core's serious and critical findings on the page as it is now (evaluated past the CSP; put on
 * the page once), from every rule or from `rules`.
 */
export const findA11yViolations = async (page: Page, rules?: string[]) => {
  if (!(await page.evaluate(() => 'axe' in window))) await page.evaluate(axeSource)
  const violations = await page.evaluate(async (runOnly) => {
    const axe = (window as unknown as { axe: Axe }).axe
    return (await axe.run(document, runOnly ? { runOnly } : {})).violations
  }, rules)
  return violations
    .filter((violation) => violation.impact === 'serious' || violation.impact === 'critical')
    .map(
      (violation) =>
        `${violation.id} (${violation.impact}): ${violation.help} at ${violation.nodes.map((node) => node.target.join(' ')).join(', ')}`,
    )
}

/** What reaches past either edge of the window (right to left pages overflow leftwards). */
const overflowOf = async (page: Page, label: string) => {
  const { width, scrollWidth } = await page.evaluate(() => ({
    width: document.documentElement.clientWidth,
    scrollWidth: document.documentElement.scrollWidth,
  }))
  if (scrollWidth <= width) return []
  // The innermost elements past an edge: what to fix.
  const culprit = await page.evaluate((edge) => {
    const wide = [...document.body.querySelectorAll('*')].filter((element) => {
      const box = element.getBoundingClientRect()
      return box.right > edge + 1 || box.left < -1
    })
    const innermost = wide.filter(
      (element) => !wide.some((other) => other !== element && element.contains(other)),
    )
    return innermost.map((element) => element.outerHTML.slice(0, 120)).join(' | ')
  }, width)
  return [`${label}: the page is ${scrollWidth} px wide in ${width}, past the edge: ${culprit}`]
}

/**
 * The whole page: the window is made as tall as the page for the shot. (Chromium's full-page
 * capture shifts right-to-left pages sideways; a window as tall as the page does not.)
 */
const shoot = async (page: Page, path: string) => {
  const viewport = page.viewport() ?? { width: 1024, height: 800 }
  const height = await page.evaluate(() => document.documentElement.scrollHeight)
  await page.setViewport({ ...viewport, height: Math.max(height, viewport.height) })
  // Encoded for speed rather than size: the shots are for looking at, and the suite takes ~180.
  await page.screenshot({ path, captureBeyondViewport: false, optimizeForSpeed: true })
  await page.setViewport(viewport)
}

const chooseLanguage = async (page: Page, language: 'en' | 'ur') => {
  await page.select('.language select', language)
  // Urdu turns the page right to left once its words have arrived.
  await page.waitForFunction(
    (chosen) =>
      chosen === 'en'
        ? document.documentElement.dir === 'ltr'
        : document.documentElement.dir === 'rtl' &&
          document.querySelector('.language span')?.textContent === 'زبان',
    {},
    language,
  )
}

export const checkStudioPage = async (
  page: Page,
  { name, directory }: { name: string; directory: string },
) => {
  const viewport = page.viewport() ?? { width: 1024, height: 800 }
  const problems: string[] = []
  for (const scheme of ['light', 'dark'] as const) {
    await page.emulateMediaFeatures([{ name: 'prefers-color-scheme', value: scheme }])
    const rules = scheme === 'dark' ? COLOUR_RULES : undefined
    problems.push(...(await findA11yViolations(page, rules)).map((problem) => `${scheme}: ${problem}`))
    await shoot(page, join(directory, `${name}-${scheme}.png`))
  }
  await page.emulateMediaFeatures([{ name: 'prefers-color-scheme', value: 'light' }])
  problems.push(...(await overflowOf(page, `${viewport.width} px`)))
  await chooseLanguage(page, 'ur')
  problems.push(...(await findA11yViolations(page)).map((problem) => `rtl: ${problem}`))
  problems.push(...(await overflowOf(page, `rtl ${viewport.width} px`)))
  await shoot(page, join(directory, `${name}-rtl.png`))
  await page.setViewport({ width: 375, height: 740 })
  problems.push(...(await overflowOf(page, 'rtl 375 px')))
  await chooseLanguage(page, 'en')
  problems.push(...(await overflowOf(page, '375 px')))
  await shoot(page, join(directory, `${name}-375.png`))
  await page.setViewport(viewport)
  return problems
}
