/** Urdu words of the analytics page (keyed by the English in the source; see ../i18n.tsx). */
const ur: Record<string, string> = {
  Analytics: 'تجزیات',
  'Conversations and calls': 'گفتگوئیں اور کالیں',
  'Call minutes': 'کال کے منٹ',
  Minutes: 'منٹ',
  'Cost (USD)': 'لاگت (امریکی ڈالر)',
  'Time to first reply (seconds)': 'پہلے جواب تک وقت (سیکنڈ)',
  Seconds: 'سیکنڈ',
  To: 'تک',
  Outcomes: 'نتائج',
  'Nothing happened in these days.': 'ان دنوں میں کچھ نہیں ہوا۔',
  Count: 'تعداد',
  'The numbers per day': 'ہر دن کے اعداد',
  Day: 'دن',
  'Time to first reply': 'پہلے جواب تک وقت',
}
export default ur
