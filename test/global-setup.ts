import { prepareDatabaseTemplate, prepareEmbeddedTemplate } from '../server/test/helpers/database-template.ts'
import { buildForBrowsers } from './build-for-browsers.ts'

/**
 * Before any worker starts: the migrated database template, built once so the first test servers
 * of a run do not each build their own (see server/test/helpers/database-template.ts); and, where
 * Chromium runs the studio's browser tests, the studio as it is now and the widget it embeds,
 * built once, so no test server serves files another test's build is rewriting.
 */
export default async function setup() {
  if (process.env.TEST_DATABASE_URL) await prepareDatabaseTemplate(process.env.TEST_DATABASE_URL)
  else await prepareEmbeddedTemplate()
  buildForBrowsers()
}
