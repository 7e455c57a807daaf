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

/** axe-core's serious and critical findings on the page as it is now (evaluated past the CSP). */
export const findA11yViolations = async (page: Page) => {
  await page.evaluate(axeSource)
  const violations = await page.evaluate(async () => {
    const axe = (
      window as unknown as { axe: { run: (context: Document) => Promise<{ violations: Violation[] }> } }
    ).axe
    return (await axe.run(document)).violations
  })
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
  await page.screenshot({ path, captureBeyondViewport: false })
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
    problems.push(...(await findA11yViolations(page)).map((problem) => `${scheme}: ${problem}`))
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
