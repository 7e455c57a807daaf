/** functions/: other areas use it through this file. */
import { registerFunctionIdsReader } from '../agents/index.ts'
import { listFunctionIds } from './store.ts'

export { registerFunctionRoutes } from './routes.ts'
export { invocableOf, listEnabledFunctions, listVersionedFunctions } from './service.ts'

// agents/ checks an agent's enabledCustomFunctions against its own functions with this reader.
registerFunctionIdsReader(listFunctionIds)
