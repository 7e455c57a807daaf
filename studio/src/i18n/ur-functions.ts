/** Urdu words of the custom functions, their test call and the agent's functions, handoff and webhook settings (see ../i18n.tsx). */
const ur: Record<string, string> = {
  'Line {line}: write each header as Name: value': 'سطر {line}: ہر ہیڈر کو Name: value کی صورت میں لکھیں',
  'New function': 'نیا فنکشن',
  'Edit {label}': '{label} میں ترمیم',
  Label: 'لیبل',
  'Name (what the agent calls)': 'نام (جس سے ایجنٹ اسے بلاتا ہے)',
  'snake_case: a-z, 0-9 and _, starting with a letter': 'snake_case: a-z، 0-9 اور _، حرف سے شروع',
  'When to call it (for the agent)': 'اسے کب بلایا جائے (ایجنٹ کے لیے)',
  Method: 'طریقہ',
  'Endpoint (https)': 'اینڈ پوائنٹ (https)',
  'Headers (one per line, Name: value)': 'ہیڈرز (ہر سطر میں ایک، Name: value)',
  'Stored: {headers}. Leave empty to keep them; type every header to replace them.':
    'محفوظ شدہ: {headers}۔ انہیں رکھنے کے لیے خالی چھوڑ دیں؛ بدلنے کے لیے ہر ہیڈر دوبارہ لکھیں۔',
  'Sent on every call, e.g. Authorization: Bearer …':
    'ہر کال کے ساتھ بھیجے جاتے ہیں، مثلاً Authorization: Bearer …',
  'Remove the stored headers (unless replaced above)': 'محفوظ شدہ ہیڈرز ہٹا دیں (اگر اوپر نئے نہ لکھے ہوں)',
  'Parameters (JSON Schema)': 'پیرامیٹرز (JSON Schema)',
  'An object schema: the arguments the agent fills in. Property types: string, number, boolean, array, object.':
    'ایک object اسکیما: وہ آرگومنٹس جو ایجنٹ بھرتا ہے۔ پراپرٹی کی اقسام: string، number، boolean، array، object۔',
  'Saving…': 'محفوظ ہو رہا ہے…',
  'Add function': 'فنکشن شامل کریں',
  'Save function': 'فنکشن محفوظ کریں',
  Cancel: 'منسوخ کریں',
  'Delete the function {label}? The agent stops calling it at once.':
    'فنکشن {label} حذف کریں؟ ایجنٹ اسے فوراً بلانا بند کر دے گا۔',
  'Custom functions': 'کسٹم فنکشنز',
  "Only the agent's creator, admins and owners see its functions.":
    'اس ایجنٹ کے فنکشنز صرف اسے بنانے والا، ایڈمن اور مالکان دیکھ سکتے ہیں۔',
  'Your own https endpoints the agent may call while it talks, with the arguments it fills in.':
    'آپ کے اپنے https اینڈ پوائنٹس جنہیں ایجنٹ بات چیت کے دوران، اپنے بھرے ہوئے آرگومنٹس کے ساتھ، بلا سکتا ہے۔',
  'Function calling is off in the settings above: the agent calls none of these.':
    'اوپر کی ترتیبات میں فنکشن کالنگ بند ہے: ایجنٹ ان میں سے کسی کو نہیں بلاتا۔',
  'No custom functions yet.': 'ابھی کوئی کسٹم فنکشن نہیں۔',
  'The agent may call it': 'ایجنٹ اسے بلا سکتا ہے',
  'Test call': 'آزمائشی کال',
  Edit: 'ترمیم',
  Delete: 'حذف کریں',
  'Pages of functions': 'فنکشنز کے صفحات',
  Previous: 'پچھلا',
  'Page {page} of {pages}': 'صفحہ {page} از {pages}',
  Next: 'اگلا',
  'Add a function': 'ایک فنکشن شامل کریں',
  'An agent can have at most {count} functions.': 'ایک ایجنٹ کے زیادہ سے زیادہ {count} فنکشنز ہو سکتے ہیں۔',
  'Owners and admins add, change and test functions.':
    'فنکشنز مالکان اور ایڈمن شامل کرتے، بدلتے اور آزماتے ہیں۔',
  'Line {line}, column {column}: {problem}': 'سطر {line}، کالم {column}: {problem}',
  '{path} must be an object with a type': '{path} کو type والا object ہونا چاہیے',
  '{path}.type must be one of {types}': '{path}.type ان میں سے ایک ہونا چاہیے: {types}',
  '{path}.default must be a {type}': '{path}.default کو {type} ہونا چاہیے',
  '{path} must be a JSON Schema object': '{path} کو JSON Schema object ہونا چاہیے',
  "{path}.type must be 'object'": "{path}.type کو 'object' ہونا چاہیے",
  '{path}.properties must be an object': '{path}.properties کو object ہونا چاہیے',
  '{path}.required names "{name}", which is not a property':
    '{path}.required میں "{name}" ہے، جو کوئی پراپرٹی نہیں',
  'The arguments must be a JSON object': 'آرگومنٹس کو JSON object ہونا چاہیے',
  'No answer': 'کوئی جواب نہیں',
  'HTTP {status}': 'HTTP {status}',
  '{ms} ms': '{ms} ملی سیکنڈ',
  'The agent would be given this JSON.': 'ایجنٹ کو یہ JSON دیا جائے گا۔',
  'The agent would be told:': 'ایجنٹ کو یہ بتایا جائے گا:',
  'Response body': 'جواب کا متن',
  'Only the beginning of the body is shown.': 'متن کا صرف ابتدائی حصہ دکھایا گیا ہے۔',
  'Test call: {label}': 'آزمائشی کال: {label}',
  'Calls {method} {endpoint} once, as the agent would. No credits are used.':
    '{method} {endpoint} کو ایک بار بلاتا ہے، جیسے ایجنٹ بلاتا۔ کوئی کریڈٹ خرچ نہیں ہوتا۔',
  'Arguments (JSON)': 'آرگومنٹس (JSON)',
  'Call it': 'بلائیں',
  Close: 'بند کریں',
  'Calling…': 'بلایا جا رہا ہے…',
  'Calling… (at most 10 s)': 'بلایا جا رہا ہے… (زیادہ سے زیادہ 10 سیکنڈ)',
  Functions: 'فنکشنز',
  'Let it call functions (the ones ticked here and its custom functions)':
    'اسے فنکشنز بلانے دیں (یہاں منتخب کیے گئے اور اس کے کسٹم فنکشنز)',
  'not offered here': 'یہاں دستیاب نہیں',
  Handoff: 'منتقلی',
  'Voice agents this one may pass the call to (at most 10).':
    'وائس ایجنٹ جنہیں یہ کال منتقل کر سکتا ہے (زیادہ سے زیادہ 10)۔',
  'Text agents this one may pass the chat to (at most 10).':
    'ٹیکسٹ ایجنٹ جنہیں یہ چیٹ منتقل کر سکتا ہے (زیادہ سے زیادہ 10)۔',
  'No other agent to hand over to yet.': 'ابھی منتقلی کے لیے کوئی دوسرا ایجنٹ نہیں۔',
  'Loading agents…': 'ایجنٹ لوڈ ہو رہے ہیں…',
  'Show more agents': 'مزید ایجنٹ دکھائیں',
  'A chat ended': 'ایک چیٹ ختم ہوئی',
  'A call ended': 'ایک کال ختم ہوئی',
  'A chat was analysed': 'ایک چیٹ کا تجزیہ ہوا',
  'A call was analysed': 'ایک کال کا تجزیہ ہوا',
  'A batch of calls finished': 'کالوں کا ایک بیچ مکمل ہوا',
  'A batch of calls failed': 'کالوں کا ایک بیچ ناکام ہوا',
  'Analysis fields (JSON Schema, optional)': 'تجزیے کے خانے (JSON Schema، اختیاری)',
  'An object schema of what to pull from each conversation, e.g. the order number. Empty: none.':
    'ہر گفتگو سے کیا نکالنا ہے اس کا object اسکیما، مثلاً آرڈر نمبر۔ خالی: کچھ نہیں۔',
  'Make a new signing secret? The current one stops working at once.':
    'نیا دستخطی راز بنائیں؟ موجودہ راز فوراً کام کرنا بند کر دے گا۔',
  'Signing secret': 'دستخطی راز',
  'Your endpoint checks the X-Parley-Signature header with it. It is shown once, when it is made.':
    'آپ کا اینڈ پوائنٹ اس سے X-Parley-Signature ہیڈر جانچتا ہے۔ یہ صرف ایک بار، بنتے وقت، دکھایا جاتا ہے۔',
  'Making a secret…': 'راز بن رہا ہے…',
  'Make a new signing secret': 'نیا دستخطی راز بنائیں',
  'Copy it now: it will not be shown again.': 'ابھی کاپی کر لیں: یہ دوبارہ نہیں دکھایا جائے گا۔',
  Copied: 'کاپی ہو گیا',
  Copy: 'کاپی کریں',
  Webhook: 'ویب ہک',
  'Webhook URL (https; conversation events are sent there)':
    'ویب ہک URL (https؛ گفتگو کے واقعات وہاں بھیجے جاتے ہیں)',
  'Events sent': 'بھیجے جانے والے واقعات',
}
export default ur
