/** Sindhi words of "Call me" on a voice agent's page, keyed by the English in the source. */
const sd: Record<string, string> = {
  'Call me': 'مون کي ڪال ڪريو',
  'The agent calls a number you give from one of your phone numbers. The call is billed like any other.':
    'ايجنٽ توهان جي ڏنل نمبر تي توهان جي ڪنهن فون نمبر تان ڪال ڪري ٿو. هن ڪال جو بل ٻين ڪالن وانگر ٿئي ٿو.',
  'Your organization has no phone number to call from yet.':
    'توهان جي تنظيم وٽ اڃا ڪال ڪرڻ لاءِ ڪو فون نمبر ناهي.',
  'Number to call': 'جنهن نمبر تي ڪال ڪرڻي آهي',
  'E.164, like +14155550123': 'E.164، جيئن +14155550123',
  'Variables (optional)': 'متغير (اختياري)',
  'One name=value a line: they fill the {{name}} placeholders of the prompt.':
    'هر سٽ ۾ هڪ name=value: اهي پرامپٽ جا {{name}} خانا ڀرين ٿا.',
  'Not a name=value line: {line}': 'هي name=value سٽ ناهي: {line}',
  Call: 'ڪال ڪريو',
  'End call': 'ڪال ختم ڪريو',
  'Dialling…': 'نمبر ملائي رهيا آهيون…',
  'Ringing…': 'گھنٽي وڄي رهي آهي…',
  'Answered: in the call': 'ڪال کنئي وئي: ڳالهه جاري آهي',
  'Call ended': 'ڪال ختم ٿي وئي',
  'SIP status {status}': 'SIP حالت {status}',
  'The call’s record': 'ڪال جو رڪارڊ',
  'Transfer to {name}: {result}': '{name} ڏانهن منتقلي: {result}',
  'What is said': 'جيڪو چيو ويو',
  'This number is on your do-not-call list.': 'هي نمبر توهان جي ڪال نه ڪرڻ واري لسٽ ۾ آهي.',
  'Do-not-call list': 'ڪال نه ڪرڻ واري لسٽ',
  'Not enough credits for a call. Add credits, then try again.':
    'ڪال لاءِ ڪافي ڪريڊٽ ناهن. ڪريڊٽ شامل ڪريو، پوءِ ٻيهر ڪوشش ڪريو.',
}
export default sd
