/** seed/: other areas use it through this file. */

export { type DemoTenant, ensureDemoTenant } from './demo.ts'
export { createDemoRouter, createFaviconRouter, serveWidget } from './demo-page.ts'
