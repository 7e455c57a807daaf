/** The widget's own words in English, Urdu and Sindhi; `{name}`-style slots are filled by `format`. */
const en = {
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
  unread: '{count} unread',
  suggestions: 'Suggestions',
  you: 'You',
  voiceCall: 'Start voice call',
}

export type Strings = typeof en

const ur: Strings = {
  openChat: 'چیٹ کھولیں',
  closeChat: 'چیٹ بند کریں',
  chat: 'چیٹ',
  placeholder: 'پیغام لکھیں…',
  send: 'بھیجیں',
  stop: 'روکیں',
  typing: 'لکھ رہا ہے…',
  usingTool: '{name} استعمال ہو رہا ہے…',
  handoff: 'اب آپ {name} سے بات کر رہے ہیں',
  error: 'کچھ غلط ہو گیا۔',
  network: 'رابطہ منقطع ہو گیا۔',
  retry: 'دوبارہ کوشش کریں',
  rateLimited: 'بہت زیادہ پیغامات۔ {seconds} سیکنڈ بعد دوبارہ کوشش کریں۔',
  unavailable: 'چیٹ اس وقت دستیاب نہیں۔ براہ کرم بعد میں کوشش کریں۔',
  ended: 'گفتگو ختم ہو گئی۔',
  startNew: 'نئی گفتگو شروع کریں',
  end: 'گفتگو ختم کریں',
  jumpToLatest: 'تازہ ترین پر جائیں',
  unread: '{count} نئے پیغامات',
  suggestions: 'تجاویز',
  you: 'آپ',
  voiceCall: 'وائس کال شروع کریں',
}

const sd: Strings = {
  openChat: 'چيٽ کوليو',
  closeChat: 'چيٽ بند ڪريو',
  chat: 'چيٽ',
  placeholder: 'پيغام لکو…',
  send: 'موڪليو',
  stop: 'روڪيو',
  typing: 'لکي رهيو آهي…',
  usingTool: '{name} استعمال ٿي رهيو آهي…',
  handoff: 'هاڻي توهان {name} سان ڳالهائي رهيا آهيو',
  error: 'ڪجهه غلط ٿي ويو.',
  network: 'رابطو ٽٽي ويو.',
  retry: 'ٻيهر ڪوشش ڪريو',
  rateLimited: 'گهڻا پيغام. {seconds} سيڪنڊن کانپوءِ ٻيهر ڪوشش ڪريو.',
  unavailable: 'چيٽ هن وقت موجود ناهي. مهرباني ڪري پوءِ ڪوشش ڪريو.',
  ended: 'ڳالهه ٻولهه ختم ٿي وئي.',
  startNew: 'نئين ڳالهه ٻولهه شروع ڪريو',
  end: 'ڳالهه ٻولهه ختم ڪريو',
  jumpToLatest: 'تازي تي وڃو',
  unread: '{count} نوان پيغام',
  suggestions: 'تجويزون',
  you: 'توهان',
  voiceCall: 'وائيس ڪال شروع ڪريو',
}

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
  network: 'رابطو ٽٽي ويو.',
  error: 'ڪال شروع نه ٿي سگهي.',
}

const catalogue = { en, ur, sd }
const voiceCatalogue = { en: voiceEn, ur: voiceUr, sd: voiceSd }
export type Language = keyof typeof catalogue

const RIGHT_TO_LEFT: ReadonlySet<Language> = new Set(['ur', 'sd'])

/** `lang` attribute → a supported language: exact, then by primary subtag, then English. */
export const resolveLanguage = (requested: string | null | undefined): Language => {
  const primary = (requested ?? '').toLowerCase().split('-')[0] ?? ''
  return primary in catalogue ? (primary as Language) : 'en'
}

export const stringsFor = (language: Language): Strings => catalogue[language]

export const voiceStringsFor = (language: Language): VoiceStrings => voiceCatalogue[language]

export const directionOf = (language: Language): 'rtl' | 'ltr' =>
  RIGHT_TO_LEFT.has(language) ? 'rtl' : 'ltr'

export const format = (template: string, values: Record<string, string | number>) =>
  template.replace(/\{(\w+)\}/g, (slot, name: string) => (name in values ? String(values[name]) : slot))
