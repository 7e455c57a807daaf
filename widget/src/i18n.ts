/** The widget's own words in English, Urdu and Sindhi; `{name}`-style slots are filled by `format`. */
export const en = {
  openChat: 'Open chat',
  closeChat: 'Close chat',
  chat: 'Chat',
  placeholder: 'Type a message…',
  send: 'Send',
  stop: 'Stop',
  typing: 'Typing…',
  usingTool: 'Using {name}…',
  handoff: 'Now talking to {name}',
  error: 'Something went wrong.',
  network: 'The connection was lost.',
  retry: 'Try again',
  rateLimited: 'Too many messages. Try again in {seconds} s.',
  unavailable: 'Chat is unavailable right now. Please try again later.',
  ended: 'Conversation ended.',
  startNew: 'Start a new one',
  end: 'End conversation',
  jumpToLatest: 'Jump to latest',
  sources: 'Sources',
  unread: '{count} unread',
  suggestions: 'Suggestions',
  you: 'You',
  voiceCall: 'Start voice call',
}

export type Strings = typeof en

/**
 * The words of a voice call. Only the voice chunk imports them, so they load with the call and not
 * with the first load; keys are the call states and failure codes (see voice/contract.ts).
 */
const voiceEn = {
  connecting: 'Connecting…',
  listening: 'Listening',
  'agent-speaking': 'Agent speaking',
  muted: 'Muted',
  reconnecting: 'Reconnecting…',
  ended: 'Call ended.',
  mute: 'Mute',
  holdToTalk: 'Hold to talk',
  endCall: 'End call',
  mic_denied: 'Microphone access was denied. You can type instead.',
  no_device: 'No microphone was found. You can type instead.',
  webrtc_blocked: 'Voice calls are blocked in this browser. You can type instead.',
  media_error: 'The voice service is not reachable right now. Please try again later.',
  insufficient_credits: 'Voice calls are unavailable right now.',
  agent_unavailable: 'The voice agent is unavailable right now. You can type instead.',
  voice_off: 'Voice calls are not available here. You can type instead.',
  network: 'The connection was lost.',
  error: 'The call could not start.',
}

export type VoiceStrings = typeof voiceEn

const voiceUr: VoiceStrings = {
  connecting: 'رابطہ ہو رہا ہے…',
  listening: 'سن رہا ہے',
  'agent-speaking': 'ایجنٹ بول رہا ہے',
  muted: 'مائیک بند ہے',
  reconnecting: 'دوبارہ رابطہ ہو رہا ہے…',
  ended: 'کال ختم ہو گئی۔',
  mute: 'خاموش کریں',
  holdToTalk: 'بات کرنے کے لیے دبائے رکھیں',
  endCall: 'کال ختم کریں',
  mic_denied: 'مائیکروفون کی اجازت نہیں ملی۔ آپ لکھ کر بات کر سکتے ہیں۔',
  no_device: 'کوئی مائیکروفون نہیں ملا۔ آپ لکھ کر بات کر سکتے ہیں۔',
  webrtc_blocked: 'اس براؤزر میں وائس کال بند ہے۔ آپ لکھ کر بات کر سکتے ہیں۔',
  media_error: 'وائس سروس اس وقت دستیاب نہیں۔ براہ کرم بعد میں کوشش کریں۔',
  insufficient_credits: 'وائس کال اس وقت دستیاب نہیں۔',
  agent_unavailable: 'وائس ایجنٹ اس وقت دستیاب نہیں۔ آپ لکھ کر بات کر سکتے ہیں۔',
  voice_off: 'یہاں وائس کال دستیاب نہیں۔ آپ لکھ کر بات کر سکتے ہیں۔',
  network: 'رابطہ منقطع ہو گیا۔',
  error: 'کال شروع نہیں ہو سکی۔',
}

const voiceSd: VoiceStrings = {
  connecting: 'ڳنڍجي رهيو آهي…',
  listening: 'ٻڌي رهيو آهي',
  'agent-speaking': 'ايجنٽ ڳالهائي رهيو آهي',
  muted: 'مائيڪ بند آهي',
  reconnecting: 'ٻيهر ڳنڍجي رهيو آهي…',
  ended: 'ڪال ختم ٿي وئي.',
  mute: 'خاموش ڪريو',
  holdToTalk: 'ڳالهائڻ لاءِ دٻائي رکو',
  endCall: 'ڪال ختم ڪريو',
  mic_denied: 'مائيڪروفون جي اجازت نه ملي. توهان لکي سگهو ٿا.',
  no_device: 'ڪو مائيڪروفون نه مليو. توهان لکي سگهو ٿا.',
  webrtc_blocked: 'هن برائوزر ۾ وائيس ڪال بند آهي. توهان لکي سگهو ٿا.',
  media_error: 'وائيس سروس هن وقت موجود ناهي. مهرباني ڪري پوءِ ڪوشش ڪريو.',
  insufficient_credits: 'وائيس ڪال هن وقت موجود ناهي.',
  agent_unavailable: 'وائيس ايجنٽ هن وقت موجود ناهي. توهان لکي سگهو ٿا.',
  voice_off: 'هتي وائيس ڪال موجود ناهي. توهان لکي سگهو ٿا.',
  network: 'رابطو ٽٽي ويو.',
  error: 'ڪال شروع نه ٿي سگهي.',
}

const languages = ['en', 'ur', 'sd'] as const
export type Language = (typeof languages)[number]
const voiceCatalogue: Record<Language, VoiceStrings> = { en: voiceEn, ur: voiceUr, sd: voiceSd }

const RIGHT_TO_LEFT: ReadonlySet<Language> = new Set(['ur', 'sd'])

/** `lang` attribute → a supported language: exact, then by primary subtag, then English. */
export const resolveLanguage = (requested: string | null | undefined): Language => {
  const primary = (requested ?? '').toLowerCase().split('-')[0] ?? ''
  return (languages as readonly string[]).includes(primary) ? (primary as Language) : 'en'
}

export const voiceStringsFor = (language: Language): VoiceStrings => voiceCatalogue[language]

export const directionOf = (language: Language): 'rtl' | 'ltr' =>
  RIGHT_TO_LEFT.has(language) ? 'rtl' : 'ltr'

export const format = (template: string, values: Record<string, string | number>) =>
  template.replace(/\{(\w+)\}/g, (slot, name: string) => (name in values ? String(values[name]) : slot))
