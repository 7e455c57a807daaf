/** Urdu words of the do-not-call list (campaigns area), keyed by the English in the source. */
const ur: Record<string, string> = {
  'Do not call': 'کال نہ کریں',
  '{number} added to the list.': '{number} فہرست میں شامل کر دیا گیا۔',
  '{number} was on the list already.': '{number} پہلے ہی فہرست میں تھا۔',
  '{number} removed from the list.': '{number} فہرست سے ہٹا دیا گیا۔',
  'Imported: {added} added, {alreadyListed} already listed, {invalid} invalid.':
    'درآمد ہو گیا: {added} شامل، {alreadyListed} پہلے سے فہرست میں، {invalid} غلط۔',
  'Added by hand or through the API': 'ہاتھ سے یا API کے ذریعے شامل کیا گیا',
  Imported: 'درآمد شدہ',
  'Opted out on call {id}': 'کال {id} پر انکار کیا',
  'Opted out in chat {id}': 'چیٹ {id} میں انکار کیا',
  'Remove {number} from the do-not-call list? It may be called again.':
    '{number} کو کال نہ کرنے کی فہرست سے ہٹائیں؟ اسے دوبارہ کال کی جا سکتی ہے۔',
  'Numbers on this list are never dialled: campaigns skip them, a single call to one is refused, and agents with opt-out add callers who ask.':
    'اس فہرست کے نمبروں پر کبھی کال نہیں کی جاتی: مہمات انہیں چھوڑ دیتی ہیں، ان پر ایک کال بھی رد کی جاتی ہے، اور انکار کی سہولت والے ایجنٹ کہنے والوں کو شامل کر دیتے ہیں۔',
  'Add a number': 'نمبر شامل کریں',
  'Add to the list': 'فہرست میں شامل کریں',
  'Import a CSV': 'CSV درآمد کریں',
  'CSV file with a phone column': 'فون کالم والی CSV فائل',
  Import: 'درآمد کریں',
  'Invalid rows': 'غلط قطاریں',
  'Row {row}: {value}': 'قطار {row}: {value}',
  '(empty)': '(خالی)',
  'No numbers on the do-not-call list.': 'کال نہ کرنے کی فہرست میں کوئی نمبر نہیں۔',
  'Remove {number}': '{number} ہٹائیں',
  'Pages of do-not-call numbers': 'کال نہ کرنے کے نمبروں کے صفحات',
  'Someone asked not to be called again': 'کسی نے دوبارہ کال نہ کرنے کو کہا',
  'The number is on the do-not-call list': 'یہ نمبر کال نہ کرنے کی فہرست میں ہے',
}
export default ur
