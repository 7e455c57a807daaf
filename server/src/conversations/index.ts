/** conversations/: other areas use it through this file. */
export { registerConversationRoutes } from './routes.ts'
