/** `npm run bench -- <name>`: runs one benchmark of bench/ and prints its figures. */
const benchmarks: Record<string, () => Promise<{ run: () => Promise<void> }>> = {
  agent: () => import('./agent.ts'),
  abuse: () => import('./abuse.ts'),
  auth: () => import('./auth.ts'),
  batch: () => import('./batch.ts'),
  chat: () => import('./chat.ts'),
  history: () => import('./history.ts'),
  middleware: () => import('./middleware.ts'),
  knowledge: () => import('./knowledge.ts'),
  metrics: () => import('./metrics.ts'),
  probe: () => import('./probe.ts'),
  studio: () => import('./studio.ts'),
  voice: () => import('./voice.ts'),
  widget: () => import('./widget.ts'),
}

const name = process.argv[2]
const load = name ? benchmarks[name] : undefined
if (!load) {
  process.stderr.write(`usage: npm run bench -- <${Object.keys(benchmarks).join('|')}>\n`)
  process.exit(2)
}
await (await load()).run()
process.exit(process.exitCode ?? 0)
