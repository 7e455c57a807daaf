import type { AppContext } from '../context.ts'
import { monotonicUlids } from '../crypto/ids.ts'
import * as store from './store.ts'

export {
  type CallClosedListener,
  type CallRefiningStep,
  type CallsClosingStep,
  closeCall,
  onCallClosed,
  onCallRefining,
  onCallsClosing,
} from './close.ts'
export type { CallRow } from './store.ts'

/** Ids made in one millisecond still sort in the order they were made (bulk-inserted calls too). */
const newCallId = monotonicUlids()

export type OpenCallInput = Pick<
  store.NewCall,
  'organizationId' | 'agentId' | 'roomName' | 'architecture' | 'direction'
> &
  Partial<
    Pick<
      store.NewCall,
      | 'userId'
      | 'keyId'
      | 'phoneNumber'
      | 'batchJobId'
      | 'batchContactId'
      | 'conversationId'
      | 'calledNumber'
      | 'sipIdentity'
      | 'microsPerMinute'
    >
  >

const newCall = (input: OpenCallInput): store.NewCall => ({
  id: newCallId(),
  userId: null,
  keyId: null,
  phoneNumber: null,
  batchJobId: null,
  batchContactId: null,
  ...input,
})

/** Records a call as active from now; the room name is its identity for LiveKit's webhooks. */
export const openCall = (ctx: AppContext, input: OpenCallInput) => store.insertCall(ctx.db, newCall(input))

/** openCall for many calls in one statement; answers their ids, in order. */
export const openCalls = async (ctx: AppContext, inputs: OpenCallInput[]) => {
  const calls = inputs.map(newCall)
  await store.insertCalls(ctx.db, calls)
  return calls.map((call) => call.id)
}
