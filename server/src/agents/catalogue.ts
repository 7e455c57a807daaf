import { readFileSync } from 'node:fs'
import { type Catalogue, ZCatalogue } from '@parley/shared'
import type { Config } from '../config.ts'

const builtIn: Catalogue = {
  models: [
    {
      id: 'offline',
      name: 'Offline stand-in (development only)',
      provider: 'parley',
      architectures: ['pipeline', 'text'],
    },
    { id: 'gpt-4o-mini', name: 'GPT-4o mini', provider: 'openai', architectures: ['pipeline', 'text'] },
    { id: 'gpt-4o', name: 'GPT-4o', provider: 'openai', architectures: ['pipeline', 'text'] },
    { id: 'gpt-4.1-mini', name: 'GPT-4.1 mini', provider: 'openai', architectures: ['pipeline', 'text'] },
    {
      id: 'llama-3.3-70b-versatile',
      name: 'Llama 3.3 70B (Groq)',
      provider: 'groq',
      architectures: ['pipeline', 'text'],
    },
    {
      id: 'gemini-2.0-flash',
      name: 'Gemini 2.0 Flash',
      provider: 'gemini',
      architectures: ['pipeline', 'text'],
    },
  ],
  stt: [
    { id: 'deepgram-nova-3', name: 'Deepgram Nova 3', provider: 'deepgram' },
    { id: 'whisper-1', name: 'OpenAI Whisper', provider: 'openai' },
    { id: 'gladia-solaria', name: 'Gladia Solaria', provider: 'gladia' },
  ],
  tts: [
    { id: 'cartesia-sonic-2', name: 'Cartesia Sonic 2', provider: 'cartesia' },
    { id: 'elevenlabs-flash-v2.5', name: 'ElevenLabs Flash v2.5', provider: 'elevenlabs' },
    { id: 'openai-tts-1', name: 'OpenAI TTS', provider: 'openai' },
  ],
  voices: [
    { voiceId: 'cartesia-katie', voiceName: 'Katie', provider: 'cartesia-sonic-2' },
    { voiceId: 'cartesia-ronald', voiceName: 'Ronald', provider: 'cartesia-sonic-2' },
    { voiceId: 'eleven-rachel', voiceName: 'Rachel', provider: 'elevenlabs-flash-v2.5' },
    { voiceId: 'openai-alloy', voiceName: 'Alloy', provider: 'openai-tts-1' },
    { voiceId: 'openai-nova', voiceName: 'Nova', provider: 'openai-tts-1' },
    { voiceId: 'alloy', voiceName: 'Alloy', provider: 'openai' },
    { voiceId: 'verse', voiceName: 'Verse', provider: 'openai' },
    { voiceId: 'Puck', voiceName: 'Puck', provider: 'gemini' },
    { voiceId: 'Kore', voiceName: 'Kore', provider: 'gemini' },
  ],
  realtimeProviders: [
    { id: 'openai', name: 'OpenAI Realtime' },
    { id: 'gemini', name: 'Gemini Live' },
  ],
  functions: [
    {
      id: 'end_call',
      name: 'End call',
      description: 'Ends the chat or hangs up, saying lastMessage first',
      available: true,
    },
    {
      id: 'web_search',
      name: 'Web search',
      description: 'Searches the web (needs a search provider)',
      available: false,
    },
  ],
  platformProviders: ['parley', 'openai', 'deepgram', 'cartesia'],
  defaults: {
    model: 'gpt-4o-mini',
    stt: 'deepgram-nova-3',
    tts: 'cartesia-sonic-2',
    voiceId: 'cartesia-katie',
  },
}

/**
 * The catalogue this deployment offers: CATALOGUE_FILE when set, the built-in one otherwise.
 * The `offline` stand-in exists only outside production.
 */
export const loadCatalogue = (
  config: Pick<Config, 'catalogueFile' | 'isProduction' | 'search'>,
): Catalogue => {
  const file = config.catalogueFile
    ? ZCatalogue.parse(JSON.parse(readFileSync(config.catalogueFile, 'utf8')))
    : builtIn
  // web_search works only with a search provider; the catalogue says whether this deployment has one.
  const source = {
    ...file,
    functions: file.functions.map((fn) =>
      fn.id === 'web_search' ? { ...fn, available: config.search !== null } : fn,
    ),
  }
  return config.isProduction
    ? { ...source, models: source.models.filter((model) => model.id !== 'offline') }
    : source
}
