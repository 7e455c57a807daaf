import { execFileSync } from 'node:child_process'
import { existsSync } from 'node:fs'
import { fileURLToPath } from 'node:url'

const root = fileURLToPath(new URL('..', import.meta.url))

/**
 * Where Chromium runs the browser tests: the widget and the studio as they are now, built once
 * before any test server serves them (a build empties its dist first). `npm test` builds before
 * both of its phases and sets PARLEY_TEST_BUILT, so vitest's global set-up and the widget's
 * browser phase, which run side by side, do not build again.
 */
export const buildForBrowsers = (workspaces: string[] = ['widget', 'studio']) => {
  if (!existsSync('/usr/bin/chromium') || process.env.PARLEY_TEST_BUILT) return
  for (const workspace of workspaces)
    execFileSync('npx', ['vite', 'build', '--logLevel', 'warn'], {
      cwd: `${root}${workspace}`,
      stdio: 'inherit',
    })
}
