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
}

const catalogue = { en, ur, sd }
export type Language = keyof typeof catalogue

const RIGHT_TO_LEFT: ReadonlySet<Language> = new Set(['ur', 'sd'])

/** `lang` attribute → a supported language: exact, then by primary subtag, then English. */
export const resolveLanguage = (requested: string | null | undefined): Language => {
  const primary = (requested ?? '').toLowerCase().split('-')[0] ?? ''
  return primary in catalogue ? (primary as Language) : 'en'
}

export const stringsFor = (language: Language): Strings => catalogue[language]

export const directionOf = (language: Language): 'rtl' | 'ltr' =>
  RIGHT_TO_LEFT.has(language) ? 'rtl' : 'ltr'

export const format = (template: string, values: Record<string, string | number>) =>
  template.replace(/\{(\w+)\}/g, (slot, name: string) => (name in values ? String(values[name]) : slot))
