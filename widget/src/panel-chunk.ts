/**
 * The panel chunk's entry: what only an open panel or a reply needs (the panel's components, the
 * markdown renderer, the panel's styles and the reply stream reader). Built on its own as
 * `panel-[hash].js` (see vite.config.ts), it runs on the first load's Preact (shared-runtime.ts);
 * chunks.ts fetches it when the browser is idle, the launcher is hovered or focused, the panel
 * opens or a message is sent, whichever comes first.
 */
export { fetchEventSource } from '@microsoft/fetch-event-source'
export { provide } from './shared-runtime.ts'
export { default as css } from './ui/panel.css?inline'
export { Panel } from './ui/panel.tsx'
