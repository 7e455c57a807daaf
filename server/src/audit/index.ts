export { type AuditActor, type AuditBy, auditByOf, auditBySystem } from './by.ts'
export { registerAuditRoutes } from './routes.ts'
export { type AuditChange, recordAudit } from './service.ts'
