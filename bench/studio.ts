import { execFileSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { gzipSync } from 'node:zlib'

/** Issue 17: the studio's first load (its page, script and styles) aims under 60 KB gzip. */
const FIRST_LOAD_AIM_BYTES = 60 * 1024

const studioDirectory = fileURLToPath(new URL('../studio', import.meta.url))
const distDirectory = join(studioDirectory, 'dist')

/** `npm run bench -- studio`: a fresh build's files, raw and gzip, and the first load against its aim. */
export const run = async () => {
  execFileSync('npx', ['vite', 'build', '--logLevel', 'warn'], { cwd: studioDirectory, stdio: 'inherit' })
  // What the first page loads: index.html and the files it links (dist/ may hold older builds' files).
  const html = readFileSync(join(distDirectory, 'index.html'), 'utf8')
  const linked = [...html.matchAll(/(?:src|href)="\/studio\/([^"]+)"/g)].map((match) => match[1] ?? '')
  const files = ['index.html', ...linked].map((file) => {
    const bytes = readFileSync(join(distDirectory, file))
    return { file, raw: bytes.length, gzip: gzipSync(bytes, { level: 9 }).length }
  })
  for (const row of files)
    process.stdout.write(
      `${row.file.padEnd(36)}${String(row.raw).padStart(10)}${String(row.gzip).padStart(10)}\n`,
    )
  const gzip = files.reduce((sum, row) => sum + row.gzip, 0)
  process.stdout.write(
    `studio first load: ${gzip.toLocaleString('en-US')} B gzip (aim < ${FIRST_LOAD_AIM_BYTES.toLocaleString('en-US')} B: ${gzip < FIRST_LOAD_AIM_BYTES ? 'met' : 'NOT met'})\n`,
  )
}
