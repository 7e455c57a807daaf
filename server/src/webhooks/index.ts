/** webhooks/: other areas use it through this file. */
export { registerWebhookRoutes } from './routes.ts'
export { notifyAgent, registerWebhookJobs, type WebhookSubscriber } from './service.ts'
