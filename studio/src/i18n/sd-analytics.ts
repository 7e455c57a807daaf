/** Sindhi words of the analytics page (keyed by the English in the source; see ../i18n.tsx). */
const sd: Record<string, string> = {
  Analytics: 'تجزيا',
  'Conversations and calls': 'ڳالهيون ۽ ڪالون',
  'Call minutes': 'ڪال جا منٽ',
  Minutes: 'منٽ',
  'Cost (USD)': 'قيمت (آمريڪي ڊالر)',
  'Time to first reply (seconds)': 'پهرين جواب تائين وقت (سيڪنڊ)',
  Seconds: 'سيڪنڊ',
  To: 'تائين',
  Outcomes: 'نتيجا',
  'Nothing happened in these days.': 'انهن ڏينهن ۾ ڪجهه به نه ٿيو.',
  Count: 'ڳڻپ',
  'The numbers per day': 'هر ڏينهن جا انگ',
  Day: 'ڏينهن',
  'Time to first reply': 'پهرين جواب تائين وقت',
}
export default sd
