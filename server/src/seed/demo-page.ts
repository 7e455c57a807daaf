import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import express, { type Router } from 'express'
import type { DemoTenant } from './demo.ts'

const escapeAttribute = (value: string) =>
  value.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;').replace(/>/g, '&gt;')

/**
 * The demo host page with the seeded text and voice agents and widget key filled in, so it embeds
 * the widget exactly as a customer would: with a script tag carrying data attributes, no inline
 * script (helmet's CSP stays as it is). Without a demo tenant the placeholders are emptied and no widget appears.
 */
export const createDemoRouter = ({
  directory,
  tenant,
  isVoiceOn,
}: {
  directory: string
  tenant: DemoTenant | null
  /** Without LiveKit the page names no voice agent, so the widget offers no microphone that can only fail. */
  isVoiceOn: boolean
}): Router => {
  const router = express.Router()
  const template = readFileSync(join(directory, 'index.html'), 'utf8')
  const page = template
    .replaceAll('%PARLEY_AGENT_ID%', escapeAttribute(tenant?.textAgentId ?? ''))
    .replaceAll('%PARLEY_WIDGET_KEY%', escapeAttribute(tenant?.widgetKey ?? ''))
    .replaceAll('%PARLEY_VOICE_AGENT_ID%', escapeAttribute((isVoiceOn && tenant?.pipelineAgentId) || ''))
  router.get(['/', '/index.html'], (_req, res) => {
    res.type('html').set('Cache-Control', 'no-cache').send(page)
  })
  router.use(express.static(directory, { index: false }))
  return router
}

/** Parley's icon at /favicon.ico (SVG, which browsers take there as well), for every page. */
export const createFaviconRouter = (directory: string): Router => {
  const router = express.Router()
  router.get('/', (_req, res) => {
    res
      .type('image/svg+xml')
      .set('Cache-Control', 'public, max-age=86400')
      .sendFile(join(directory, 'favicon.svg'))
  })
  return router
}

/**
 * The built widget: the loader keeps a short cache so a new release reaches every site within minutes;
 * content-hashed chunks never change and are cached for a year. Any site may load them.
 */
export const serveWidget = (directory: string) =>
  express.static(directory, {
    index: false,
    fallthrough: true,
    setHeaders: (res, path) => {
      const isHashed = /-[\w-]{8,}\.m?js$/.test(path)
      res.set({
        'Cache-Control': isHashed ? 'public, max-age=31536000, immutable' : 'public, max-age=300',
        'Access-Control-Allow-Origin': '*',
        // helmet's default (same-origin) would stop other sites' pages from running the script.
        'Cross-Origin-Resource-Policy': 'cross-origin',
      })
    },
  })
