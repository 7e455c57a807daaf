import { OpenAPIRegistry, OpenApiGeneratorV31 } from '@asteasolutions/zod-to-openapi'
import { addExamples } from './examples.ts'

export const createRegistry = () => {
  const registry = new OpenAPIRegistry()
  registry.registerComponent('securitySchemes', 'studioSession', {
    type: 'http',
    scheme: 'bearer',
    bearerFormat: 'JWT',
    description:
      'Studio session token from POST /api/auth/login or /api/auth/signup (12 hours); on /v1 it acts as its member, with their role',
  })
  registry.registerComponent('securitySchemes', 'adminToken', {
    type: 'http',
    scheme: 'bearer',
    description: 'The operator token (ADMIN_TOKEN)',
  })
  registry.registerComponent('securitySchemes', 'apiKeyBearer', {
    type: 'http',
    scheme: 'bearer',
    description: 'A secret API key: Authorization: Bearer <API_KEY>',
  })
  registry.registerComponent('securitySchemes', 'apiKeyHeader', {
    type: 'apiKey',
    in: 'header',
    name: 'X-API-Key',
    description:
      'An API key in the X-API-Key header: a secret key; chat and voice session creation also take a widget key (tk_widget_…) from an Origin on its allowed domains',
  })
  registry.registerComponent('securitySchemes', 'studioTokenHeader', {
    type: 'apiKey',
    in: 'header',
    name: 'X-Studio-Token',
    description: 'A studio session token (chat session creation only)',
  })
  registry.registerComponent('securitySchemes', 'workerToken', {
    type: 'http',
    scheme: 'bearer',
    description: 'The voice agent worker’s token (WORKER_TOKEN)',
  })
  registry.registerComponent('securitySchemes', 'chatSessionToken', {
    type: 'http',
    scheme: 'bearer',
    bearerFormat: 'JWT',
    description:
      'The session_token of POST /v1/chat/sessions (24 hours); its conversation id must match the path',
  })
  return registry
}

/**
 * The OpenAPI 3.1 document of every route registered so far, every leaf of its schemas with a
 * realistic example (examples.ts).
 */
export const generateDocument = (registry: OpenAPIRegistry, { serverUrl }: { serverUrl: string }) => {
  const document = new OpenApiGeneratorV31(registry.definitions).generateDocument({
    openapi: '3.1.0',
    info: {
      title: 'Parley API',
      version: '1.0.0',
      description:
        'Agents, text chat (REST + Server-Sent Events), voice sessions, custom functions, batch calling and API keys.',
    },
    servers: [{ url: serverUrl }],
  })
  addExamples(document as unknown as Parameters<typeof addExamples>[0])
  return document
}
