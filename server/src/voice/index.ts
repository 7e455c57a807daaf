/** voice/: other areas use it through this file. */
export { type AgentWorkerProcess, isAgentWorkerBuilt, superviseAgentWorker } from './agent-worker-process.ts'
export { registerVoiceRoutes } from './routes.ts'
export { registerWorkerRoutes } from './worker-routes.ts'
