/** Urdu words of the studio's knowledge page (keyed by the English in the source; see ../i18n.tsx). */
const ur: Record<string, string> = {
  'A file (PDF, DOCX, HTML, Markdown, text, CSV)': 'ایک فائل (PDF، DOCX، HTML، Markdown، متن، CSV)',
  'A whole site': 'پوری ویب سائٹ',
  Add: 'شامل کریں',
  'Add a source': 'ماخذ شامل کریں',
  Address: 'پتا',
  'Agents answering from these sources': 'ان ماخذوں سے جواب دینے والے ایجنٹ',
  'Failed: {reason}': 'ناکام: {reason}',
  'Fetch again': 'دوبارہ حاصل کریں',
  'Fetching: {done} of {found} pages': 'حاصل ہو رہا ہے: {found} میں سے {done} صفحات',
  Indexing: 'فہرست بن رہی ہے',
  Knowledge: 'معلومات',
  'No passage matches this question.': 'کوئی اقتباس اس سوال سے نہیں ملتا۔',
  'No sources yet.': 'ابھی کوئی ماخذ نہیں۔',
  'One page': 'ایک صفحہ',
  Question: 'سوال',
  Queued: 'قطار میں',
  'Ready: {chunks} passages': 'تیار: {chunks} اقتباسات',
  Text: 'متن',
  Title: 'عنوان',
  'Try a question': 'ایک سوال آزمائیں',
  'Your site and documents, for agents to answer from and name as their sources.':
    'آپ کی ویب سائٹ اور دستاویزات، جن سے ایجنٹ جواب دیں اور انہیں اپنے ماخذ کے طور پر بتائیں۔',
}
export default ur
