import { prepareDatabaseTemplate, prepareEmbeddedTemplate } from '../server/test/helpers/database-template.ts'

/**
 * Builds the migrated database template once, before any worker starts, so the first test servers
 * of a run do not each build their own (see server/test/helpers/database-template.ts).
 */
export default async function setup() {
  if (process.env.TEST_DATABASE_URL) await prepareDatabaseTemplate(process.env.TEST_DATABASE_URL)
  else await prepareEmbeddedTemplate()
}
