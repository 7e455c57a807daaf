/** Sindhi words of a campaign's retries by outcome (new campaign form, campaign page), keyed by the English in the source. */
const sd: Record<string, string> = {
  'Voicemail (left or hung up)': 'وائس ميل (پيغام ڇڏيو يا ڪال بند ڪئي)',
  minutes: 'منٽ',
  hours: 'ڪلاڪ',
  days: 'ڏينهن',
  '1 minute': '1 منٽ',
  '1 hour': '1 ڪلاڪ',
  '1 day': '1 ڏينهن',
  '{count} minutes': '{count} منٽ',
  '{count} hours': '{count} ڪلاڪ',
  '{count} days': '{count} ڏينهن',
  'Not retried': 'ٻيهر ڪوشش نه',
  '1 more try after {wait}': '{wait} کانپوءِ هڪ وڌيڪ ڪوشش',
  '{count} more tries after {wait}': '{wait} کانپوءِ {count} وڌيڪ ڪوششون',
  'Never retried: {outcomes}.': 'ڪڏهن به ٻيهر ڪوشش نه: {outcomes}.',
  'Retries by outcome': 'نتيجي موجب ٻيهر ڪوششون',
  'After a try ends this way, how many more tries the contact gets and how long after; inside the calling hours, and never more than the tries per contact.':
    'ڪوشش هن طرح ختم ٿيڻ تي رابطي کي ڪيتريون وڌيڪ ڪوششون ملن ۽ ڪيتري دير کانپوءِ؛ ڪال جي وقتن اندر، ۽ هر رابطي جي ڪوششن کان ڪڏهن به وڌيڪ نه.',
  'Default: {rule}': 'ڊيفالٽ: {rule}',
  'More tries': 'وڌيڪ ڪوششون',
  After: 'ڪيتري دير کانپوءِ',
  Unit: 'اڪائي',
}
export default sd
