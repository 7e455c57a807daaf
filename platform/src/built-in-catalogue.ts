import type { Catalogue } from '@parley/shared'

/**
 * Every entry names its provider (a registry id, see providers/registry.ts) and the provider's own
 * model or voice id, which is what the worker sends. Gladia is not offered: LiveKit Agents for
 * Node has no Gladia plugin, so a voice agent with it could never hear anyone. Each model carries
 * its list price in USD per million tokens: the one price table (config.ts reads it; LLM_PRICES and
 * PROVIDERS_FILE add or replace entries); each STT, TTS and realtime entry its price per minute of call
 * with the platform's key (approximate list prices per minute of speech, with the platform's share;
 * README "Voice pricing"), the defaults adding up to the former flat 0.0175 and 0.035 USD a minute.
 */
export const builtInCatalogue: Catalogue = {
  models: [
    {
      id: 'offline',
      name: 'Offline stand-in (development only)',
      provider: 'parley',
      architectures: ['pipeline', 'text'],
      price: { inputUsdPerMillion: 0, outputUsdPerMillion: 0 },
    },
    {
      id: 'gpt-4o-mini',
      name: 'GPT-4o mini',
      provider: 'openai',
      providerModel: 'gpt-4o-mini',
      architectures: ['pipeline', 'text'],
      price: { inputUsdPerMillion: 0.15, outputUsdPerMillion: 0.6 },
    },
    {
      id: 'gpt-4o',
      name: 'GPT-4o',
      provider: 'openai',
      providerModel: 'gpt-4o',
      architectures: ['pipeline', 'text'],
      price: { inputUsdPerMillion: 2.5, outputUsdPerMillion: 10 },
    },
    {
      id: 'gpt-4.1-mini',
      name: 'GPT-4.1 mini',
      provider: 'openai',
      providerModel: 'gpt-4.1-mini',
      architectures: ['pipeline', 'text'],
      price: { inputUsdPerMillion: 0.4, outputUsdPerMillion: 1.6 },
    },
    {
      id: 'llama-3.3-70b-versatile',
      name: 'Llama 3.3 70B (Groq)',
      provider: 'groq',
      providerModel: 'llama-3.3-70b-versatile',
      architectures: ['pipeline', 'text'],
      price: { inputUsdPerMillion: 0.59, outputUsdPerMillion: 0.79 },
    },
    {
      id: 'gemini-2.0-flash',
      name: 'Gemini 2.0 Flash',
      provider: 'gemini',
      providerModel: 'gemini-2.0-flash',
      architectures: ['pipeline', 'text'],
      price: { inputUsdPerMillion: 0.1, outputUsdPerMillion: 0.4 },
    },
  ],
  stt: [
    {
      id: 'deepgram-nova-3',
      name: 'Deepgram Nova 3',
      provider: 'deepgram',
      providerModel: 'nova-3',
      price: { usdPerMinute: 0.0077 },
    },
    {
      id: 'whisper-1',
      name: 'OpenAI Whisper',
      provider: 'openai',
      providerModel: 'whisper-1',
      price: { usdPerMinute: 0.006 },
    },
    {
      id: 'groq-whisper-large-v3-turbo',
      name: 'Whisper Large v3 Turbo (Groq)',
      provider: 'groq',
      providerModel: 'whisper-large-v3-turbo',
      price: { usdPerMinute: 0.0007 },
    },
  ],
  tts: [
    {
      id: 'cartesia-sonic-2',
      name: 'Cartesia Sonic 2',
      provider: 'cartesia',
      providerModel: 'sonic-2',
      price: { usdPerMinute: 0.0092 },
    },
    {
      id: 'elevenlabs-flash-v2.5',
      name: 'ElevenLabs Flash v2.5',
      provider: 'elevenlabs',
      providerModel: 'eleven_flash_v2_5',
      price: { usdPerMinute: 0.045 },
    },
    {
      id: 'openai-tts-1',
      name: 'OpenAI TTS',
      provider: 'openai',
      providerModel: 'tts-1',
      price: { usdPerMinute: 0.0135 },
    },
  ],
  voices: [
    {
      voiceId: 'cartesia-katie',
      voiceName: 'Katie',
      provider: 'cartesia-sonic-2',
      providerVoiceId: 'f786b574-daa5-4673-aa0c-cbe3e8534c02',
    },
    {
      voiceId: 'cartesia-ronald',
      voiceName: 'Ronald',
      provider: 'cartesia-sonic-2',
      providerVoiceId: '5ee9feff-1265-424a-9d7f-8e4d431a12c7',
    },
    {
      voiceId: 'eleven-rachel',
      voiceName: 'Rachel',
      provider: 'elevenlabs-flash-v2.5',
      providerVoiceId: '21m00Tcm4TlvDq8ikWAM',
    },
    { voiceId: 'openai-alloy', voiceName: 'Alloy', provider: 'openai-tts-1', providerVoiceId: 'alloy' },
    { voiceId: 'openai-nova', voiceName: 'Nova', provider: 'openai-tts-1', providerVoiceId: 'nova' },
    { voiceId: 'alloy', voiceName: 'Alloy', provider: 'openai', providerVoiceId: 'alloy' },
    { voiceId: 'verse', voiceName: 'Verse', provider: 'openai', providerVoiceId: 'verse' },
    { voiceId: 'Puck', voiceName: 'Puck', provider: 'gemini', providerVoiceId: 'Puck' },
    { voiceId: 'Kore', voiceName: 'Kore', provider: 'gemini', providerVoiceId: 'Kore' },
  ],
  realtimeProviders: [
    {
      id: 'openai',
      name: 'OpenAI Realtime',
      providerModel: 'gpt-4o-realtime-preview',
      price: { usdPerMinute: 0.035 },
    },
    {
      id: 'gemini',
      name: 'Gemini Live',
      providerModel: 'gemini-2.0-flash-live-001',
      price: { usdPerMinute: 0.02 },
    },
  ],
  functions: [
    {
      id: 'end_call',
      name: 'End call',
      description: 'Ends the chat or hangs up, saying lastMessage first',
      available: true,
    },
    {
      id: 'send_dtmf',
      name: 'Keypad',
      description:
        'Presses phone keys (0-9, * and #, w or , for a half-second pause) to get through a phone menu; phone calls of voice agents',
      available: true,
    },
    {
      id: 'opt_out',
      name: 'Opt out',
      description:
        "Puts the caller's or visitor's number on the do-not-call list, confirms in one sentence and ends the call or chat",
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
