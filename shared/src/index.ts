export * from './accounts.ts'
export * from './admin.ts'
export * from './common.ts'
export * from './errors.ts'
