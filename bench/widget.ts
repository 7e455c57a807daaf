import { execFileSync } from 'node:child_process'
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { brotliCompressSync, constants, gzipSync } from 'node:zlib'
import { measureOpen } from './widget-open.ts'

/**
 * Issue 35 (issue 6 had 20 KB): the first load, the script-tag loader with the launcher and the
 * chat's state in it, stays within 16 KiB gzip. The open panel, the markdown renderer and the
 * reply stream reader come after it in the panel chunk.
 */
const FIRST_LOAD_BUDGET_BYTES = 16 * 1024
const FIRST_LOAD = ['parley.js']

const widgetDirectory = fileURLToPath(new URL('../widget', import.meta.url))
const distDirectory = join(widgetDirectory, 'dist')

const measure = (file: string) => {
  const bytes = readFileSync(join(distDirectory, file))
  return {
    file,
    raw: bytes.length,
    gzip: gzipSync(bytes, { level: 9 }).length,
    brotli: brotliCompressSync(bytes, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } }).length,
  }
}

export const run = async () => {
  // Measure what a fresh build ships, never a stale dist/.
  execFileSync('npx', ['vite', 'build', '--logLevel', 'warn'], { cwd: widgetDirectory, stdio: 'inherit' })
  const rows = readdirSync(distDirectory, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => measure(join(entry.parentPath, entry.name).slice(distDirectory.length + 1)))
  const pad = (value: string | number, width: number) => String(value).padStart(width)
  process.stdout.write(`${'file'.padEnd(28)}${pad('raw', 10)}${pad('gzip', 10)}${pad('brotli', 10)}\n`)
  for (const row of rows) {
    process.stdout.write(
      `${row.file.padEnd(28)}${pad(row.raw, 10)}${pad(row.gzip, 10)}${pad(row.brotli, 10)}\n`,
    )
  }
  const firstLoad = rows.filter((row) => FIRST_LOAD.includes(row.file))
  const gzip = firstLoad.reduce((sum, row) => sum + row.gzip, 0)
  const brotli = firstLoad.reduce((sum, row) => sum + row.brotli, 0)
  const verdict = gzip <= FIRST_LOAD_BUDGET_BYTES ? 'within' : 'OVER'
  process.stdout.write(
    `first load (${FIRST_LOAD.join(' + ')}): ${gzip} B gzip, ${brotli} B brotli; budget ${FIRST_LOAD_BUDGET_BYTES} B gzip: ${verdict}\n`,
  )
  // Fetched after the first load (at idle, or when the visitor reaches for the launcher), and only
  // when a visitor starts a call: outside the first-load budget.
  const later = [
    { pattern: /^panel-.*\.js$/, when: 'at idle, on hover or focus of the launcher, or on open' },
    { pattern: /^voice-.*\.js$/, when: 'on the first call only' },
  ]
  for (const { pattern, when } of later)
    for (const row of rows.filter((entry) => pattern.test(entry.file)))
      process.stdout.write(
        `${row.file.split('-')[0]} chunk (${row.file}, loaded ${when}): ${row.gzip} B gzip, ${row.brotli} B brotli\n`,
      )
  if (verdict === 'OVER') process.exitCode = 1
  await measureOpen(distDirectory)
}
