import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { join } from 'node:path'
import type { Page } from 'puppeteer-core'

/**
 * What every studio page is held to in the browser tests: axe-core finds no serious or critical
 * violation in the light scheme nor in the dark one, and the page fits a 375 px phone without
 * sideways scrolling. Each check leaves three screenshots: light, dark and 375 px.
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

export const checkStudioPage = async (
  page: Page,
  { name, directory }: { name: string; directory: string },
) => {
  const viewport = page.viewport() ?? { width: 1024, height: 800 }
  const problems: string[] = []
  for (const scheme of ['light', 'dark'] as const) {
    await page.emulateMediaFeatures([{ name: 'prefers-color-scheme', value: scheme }])
    problems.push(...(await findA11yViolations(page)).map((problem) => `${scheme}: ${problem}`))
    await page.screenshot({ path: join(directory, `${name}-${scheme}.png`), fullPage: true })
  }
  await page.setViewport({ width: 375, height: 740 })
  const width = await page.evaluate(() => document.documentElement.scrollWidth)
  if (width > 375) {
    // The innermost element that reaches past the screen's edge: what to fix.
    const culprit = await page.evaluate(() => {
      const wide = [...document.body.querySelectorAll('*')].filter(
        (element) => element.getBoundingClientRect().right > 375,
      )
      const innermost = wide.filter(
        (element) => !wide.some((other) => other !== element && element.contains(other)),
      )
      return innermost.map((element) => element.outerHTML.slice(0, 120)).join(' | ')
    })
    problems.push(`375 px: the page is ${width} px wide, past the edge: ${culprit}`)
  }
  await page.screenshot({ path: join(directory, `${name}-375.png`), fullPage: true })
  await page.setViewport(viewport)
  await page.emulateMediaFeatures([{ name: 'prefers-color-scheme', value: 'light' }])
  return problems
}
