import type { Strings } from './i18n.ts'

/**
 * The widget's own words in Urdu and Sindhi: built as their own chunk (`lang-[hash].js`, see
 * vite.config.ts) and fetched only by a widget whose language is one of them, so the first load
 * of every other widget does not carry them.
 */
export const ur: Strings = {
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
  sources: 'ماخذ',
  unread: '{count} نئے پیغامات',
  suggestions: 'تجاویز',
  you: 'آپ',
  voiceCall: 'وائس کال شروع کریں',
}

export const sd: Strings = {
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
  sources: 'ذريعا',
  unread: '{count} نوان پيغام',
  suggestions: 'تجويزون',
  you: 'توهان',
  voiceCall: 'وائيس ڪال شروع ڪريو',
}
