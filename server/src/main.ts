import { type Config, ConfigError, loadConfig } from './config.ts'
import type { RunningServer } from './server.ts'
import { start } from './server.ts'

const printWelcome = (config: Config, running: RunningServer) => {
  const lines = ['', `  Parley is running at ${running.url}`, '']
  const demo = running.demo?.tenant
  if (demo) {
    lines.push(
      `  Demo page     ${running.url}/demo/`,
      `  API docs      ${running.url}/docs`,
      `  Owner login   ${demo.ownerEmail}  /  ${demo.ownerPassword}`,
      `  Widget key    ${demo.widgetKey}`,
    )
  } else {
    lines.push(`  API docs      ${running.url}/docs`)
  }
  if (config.generatedSecrets.includes('ADMIN_TOKEN')) lines.push(`  Admin token   ${config.adminToken}`)
  lines.push(
    '',
    `  Next: open the demo page, or try  npm run admin -- orgs`,
    `  Data lives in ${config.dataDir}; stop with Ctrl+C.`,
    '',
  )
  process.stdout.write(`${lines.join('\n')}\n`)
}

const main = async () => {
  const config = loadConfig()
  const running = await start({ config, seedDemo: !config.isProduction })
  if (config.role !== 'worker') printWelcome(config, running)
  const shutdown = (signal: string) => {
    running.ctx.logger.info({ signal }, 'shutting down')
    running.stop().then(
      () => process.exit(0),
      () => process.exit(1),
    )
  }
  process.once('SIGTERM', () => shutdown('SIGTERM'))
  process.once('SIGINT', () => shutdown('SIGINT'))
}

main().catch((error: unknown) => {
  if (error instanceof ConfigError) {
    process.stderr.write(`${error.message}\n`)
  } else {
    process.stderr.write(`Parley failed to start: ${(error as Error).stack ?? String(error)}\n`)
  }
  process.exit(1)
})
