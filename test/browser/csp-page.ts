import express, { type Router } from 'express'

/**
 * A host page under a strict Content-Security-Policy (no inline script or style, no eval, connections
 * only to itself, where the API also is). Loaded in an iframe by the browser test; its probe script
 * reports to the parent page whether a whole exchange with the widget worked.
 */
const pageWith = (
  probe: string,
) => `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>strict CSP host</title></head>
<body><p>Strict CSP host page</p><script src="/widget/parley.js"></script><script src="/csp-test/${probe}"></script></body></html>`

const probe = `
const widget = document.createElement('parley-widget')
widget.setAttribute('agent-id', new URLSearchParams(location.search).get('agent'))
widget.setAttribute('key', new URLSearchParams(location.search).get('key'))
widget.setAttribute('base-url', location.origin)
const report = (result) => parent.postMessage({ type: 'csp-probe', ...result }, '*')
const violations = []
document.addEventListener('securitypolicyviolation', (event) => violations.push(event.violatedDirective))
widget.addEventListener('parley:message', (event) => {
  if (event.detail.role !== 'assistant') return
  const styled = getComputedStyle(widget.shadowRoot.querySelector('.launcher')).borderRadius
  report({ text: event.detail.content, styled, violations })
})
widget.addEventListener('parley:error', (event) => report({ error: event.detail.code, violations }))
document.body.append(widget)
widget.open()
widget.send('hello csp')
`

/** Starts a voice call on the real API (no LiveKit there: it ends with media_error) and reports how it ended. */
const voiceProbe = `
const params = new URLSearchParams(location.search)
const widget = document.createElement('parley-widget')
widget.setAttribute('agent-id', params.get('agent'))
widget.setAttribute('key', params.get('key'))
widget.setAttribute('mode', 'voice')
const violations = []
document.addEventListener('securitypolicyviolation', (event) => violations.push(event.violatedDirective))
widget.addEventListener('parley:voice-state', (event) => {
  if (event.detail.state !== 'ended') return
  const chunks = performance.getEntriesByType('resource').filter((entry) => /\\/widget\\/voice-/.test(entry.name))
  parent.postMessage({ type: 'csp-voice-probe', reason: event.detail.reason, chunks: chunks.length, violations }, '*')
})
document.body.append(widget)
widget.startVoice()
`

export const createCspPage = (): Router => {
  const router = express.Router()
  const strict = "default-src 'self'; connect-src 'self'; base-uri 'none'; object-src 'none'"
  router.get('/', (_req, res) => {
    // The test page on another origin frames this one; helmet's X-Frame-Options would refuse it.
    res.removeHeader('X-Frame-Options')
    res.set('Content-Security-Policy', strict).type('html').send(pageWith('probe.js'))
  })
  router.get('/voice', (_req, res) => {
    res.removeHeader('X-Frame-Options')
    res.set('Content-Security-Policy', strict).type('html').send(pageWith('voice-probe.js'))
  })
  router.get('/voice-probe.js', (_req, res) => {
    res.set('Content-Security-Policy', strict).type('js').send(voiceProbe)
  })
  router.get('/probe.js', (_req, res) => {
    res.set('Content-Security-Policy', strict).type('js').send(probe)
  })
  return router
}
