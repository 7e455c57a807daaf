/** Sindhi words of call outcomes (calls list, campaign breakdown and tries), keyed by the English in the source. */
const sd: Record<string, string> = {
  'Voicemail left': 'وائس ميل تي پيغام ڇڏيو',
  'Voicemail, hung up': 'وائس ميل، ڪال بند ڪئي',
  Declined: 'رد ڪئي وئي',
  'Phone menu': 'فون مينيو',
  'Opted out': 'وڌيڪ ڪال نه ڪرڻ جي گهر',
  'Transferred to a person': 'ڪنهن ماڻهوءَ ڏانهن منتقل ڪئي وئي',
  Outcome: 'نتيجو',
  Outcomes: 'نتيجا',
  'No call has ended yet.': 'اڃا ڪا ڪال ختم نه ٿي آهي.',
}
export default sd
