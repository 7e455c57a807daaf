/** Urdu words of "Call me" on a voice agent's page, keyed by the English in the source. */
const ur: Record<string, string> = {
  'Call me': 'مجھے کال کریں',
  'The agent calls a number you give from one of your phone numbers. The call is billed like any other.':
    'ایجنٹ آپ کے دیے ہوئے نمبر پر آپ کے کسی فون نمبر سے کال کرتا ہے۔ اس کال کا بل دوسری کالوں کی طرح بنتا ہے۔',
  'Your organization has no phone number to call from yet.':
    'آپ کی تنظیم کے پاس ابھی کال کرنے کے لیے کوئی فون نمبر نہیں۔',
  'Number to call': 'جس نمبر پر کال کرنی ہے',
  'E.164, like +14155550123': 'E.164، جیسے +14155550123',
  'Variables (optional)': 'متغیرات (اختیاری)',
  'One name=value a line: they fill the {{name}} placeholders of the prompt.':
    'ہر سطر میں ایک name=value: یہ پرامپٹ کے {{name}} خانے بھرتے ہیں۔',
  'Not a name=value line: {line}': 'یہ name=value سطر نہیں: {line}',
  Call: 'کال کریں',
  'End call': 'کال ختم کریں',
  'Dialling…': 'نمبر ملایا جا رہا ہے…',
  'Ringing…': 'گھنٹی بج رہی ہے…',
  'Answered: in the call': 'کال اٹھا لی گئی: بات جاری ہے',
  'Call ended': 'کال ختم ہو گئی',
  'SIP status {status}': 'SIP اسٹیٹس {status}',
  'The call’s record': 'کال کا ریکارڈ',
  'Transfer to {name}: {result}': '{name} کو منتقلی: {result}',
  'What is said': 'جو کہا گیا',
  'This number is on your do-not-call list.': 'یہ نمبر آپ کی کال نہ کرنے کی فہرست میں ہے۔',
  'Do-not-call list': 'کال نہ کرنے کی فہرست',
  'Not enough credits for a call. Add credits, then try again.':
    'کال کے لیے کافی کریڈٹ نہیں۔ کریڈٹ شامل کریں، پھر دوبارہ کوشش کریں۔',
}
export default ur
