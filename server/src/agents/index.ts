/** agents/: other areas use it through this file. */
export { agentActorOf } from './actor.ts'
export { loadCatalogue } from './catalogue.ts'
export { type AgentActor, canUpdate, canView } from './permissions.ts'
export {
  findAgentForFunctions,
  findSessionAgent,
  forgetCustomFunction,
  getAgent,
  listAgentsForFunctions,
  readWebhookSecret,
  registerFunctionIdsReader,
  registerKnowledgeSourceCheck,
} from './service.ts'
export {
  type AgentRow,
  agentExists,
  agentFromJson,
  findAgent,
  findAgentsByIds,
  findServingAgent,
  insertAgent,
} from './store.ts'
export { registerStudioAgentRoutes } from './studio-routes.ts'
export { registerV1AgentRoutes } from './v1-routes.ts'
export { agentAsVersion, publishedVersionOf, registerPublishCheck, versionSnapshot } from './versions.ts'
export { recordFunctionChange } from './versions-record.ts'
export { registerAgentVersionRoutes } from './versions-routes.ts'
