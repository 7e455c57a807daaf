import type { Executor } from '../db/index.ts'

export type NewAgent = {
  id: string
  organizationId: string
  userId: string
  name: string
  description: string | null
  agentArchitecture: 'pipeline' | 'realtime' | 'text'
  mode: 'public' | 'private' | 'commercial'
  model: string | null
  stt: string | null
  tts: string | null
  voiceId: string | null
  realtimeProvider: 'openai' | 'gemini' | null
  sysMsg: string
  greetingType: 'agentFirst' | 'userFirst'
  greetingMessage: string | null
  lastMessage: string | null
  temperature: number
  languages: string[]
  enabledFunctions: string[]
  active: boolean
}

export const insertAgent = async (db: Executor, agent: NewAgent) => {
  await db
    .insertInto('agents')
    .values({
      id: agent.id,
      organization_id: agent.organizationId,
      user_id: agent.userId,
      name: agent.name,
      description: agent.description,
      agent_architecture: agent.agentArchitecture,
      mode: agent.mode,
      model: agent.model,
      stt: agent.stt,
      tts: agent.tts,
      voice_id: agent.voiceId,
      realtime_provider: agent.realtimeProvider,
      sys_msg: agent.sysMsg,
      greeting_type: agent.greetingType,
      greeting_message: agent.greetingMessage,
      last_message: agent.lastMessage,
      temperature: agent.temperature,
      inactivity_timeout: 30,
      function_calling_enabled: agent.enabledFunctions.length > 0,
      enabled_functions: JSON.stringify(agent.enabledFunctions),
      enabled_custom_functions: '[]',
      languages: JSON.stringify(agent.languages),
      active: agent.active,
    })
    .execute()
}

export const agentExists = async (db: Executor, id: string) =>
  (await db.selectFrom('agents').select('id').where('id', '=', id).executeTakeFirst()) !== undefined
