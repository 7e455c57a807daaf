/** Urdu words of Try it and the widget customiser (studio-tryit), keyed by the English in the source. */
const ur: Record<string, string> = {
  'The widget could not be loaded from this server. Reload the page to try again.':
    'اس سرور سے ویجٹ لوڈ نہیں ہو سکا۔ دوبارہ کوشش کے لیے صفحہ دوبارہ لوڈ کریں۔',
  'Try it': 'آزما کر دیکھیں',
  'Talk to the draft': 'ڈرافٹ سے بات کریں',
  'Replies use the saved draft, not the live version. Visitors still get the live version.':
    'جوابات محفوظ شدہ ڈرافٹ سے آتے ہیں، لائیو ورژن سے نہیں۔ آنے والوں کو اب بھی لائیو ورژن ملتا ہے۔',
  'Talk to it': 'اس سے بات کریں',
  Hide: 'چھپائیں',
  'Resetting…': 'نئے سرے سے شروع ہو رہا ہے…',
  'Reset conversation': 'گفتگو نئے سرے سے شروع کریں',
  'The widget your visitors get, talking to this agent. These conversations are billed and listed like any other.':
    'وہی ویجٹ جو آپ کے وزیٹرز کو ملتا ہے، اسی ایجنٹ سے بات کرتا ہوا۔ یہ گفتگو بھی باقی گفتگو کی طرح بل ہوتی ہے اور فہرست میں آتی ہے۔',
  'This agent is not live: only the studio can talk to it until you make it live.':
    'یہ ایجنٹ لائیو نہیں ہے: جب تک آپ اسے لائیو نہ کریں، صرف اسٹوڈیو اس سے بات کر سکتا ہے۔',
  'It answers by voice: press the microphone and let your browser use it.':
    'یہ آواز میں جواب دیتا ہے: مائیکروفون دبائیں اور اپنے براؤزر کو اسے استعمال کرنے دیں۔',
  'Settings saved: replies follow them from your next message. Reset to start over with the greeting.':
    'ترتیبات محفوظ ہو گئیں: آپ کے اگلے پیغام سے جواب ان کے مطابق ہوں گے۔ خوش آمدید کے پیغام سمیت نئے سرے سے شروع کرنے کے لیے گفتگو دوبارہ شروع کریں۔',
  'Not a colour: write one such as #1d4ed8, rgb(29 78 216) or teal.':
    'یہ رنگ نہیں ہے: کوئی رنگ لکھیں، جیسے #1d4ed8، rgb(29 78 216) یا teal۔',
  'Write the prompt, or remove it.': 'پرامپٹ لکھیں، یا اسے ہٹا دیں۔',
  'How it looks': 'یہ کیسا دکھتا ہے',
  Position: 'جگہ',
  'Bottom right': 'نیچے دائیں',
  'Bottom left': 'نیچے بائیں',
  'Urdu and Sindhi widgets mirror it.': 'اردو اور سندھی ویجٹ میں یہ الٹ جاتا ہے۔',
  Theme: 'تھیم',
  "As the visitor's system": 'وزیٹر کے سسٹم کے مطابق',
  Light: 'روشن',
  Dark: 'گہرا',
  'Accent colour': 'نمایاں رنگ',
  "Empty keeps the widget's blue.": 'خالی چھوڑیں تو ویجٹ کا اپنا نیلا رنگ رہے گا۔',
  'Pick the accent colour': 'نمایاں رنگ چنیں',
  'White words on this colour are hard to read (contrast {ratio}:1; aim for 4.5:1 or more).':
    'اس رنگ پر سفید الفاظ پڑھنا مشکل ہے (کنٹراسٹ {ratio}:1؛ کم از کم 4.5:1 رکھیں)۔',
  "The page's own language": 'صفحے کی اپنی زبان',
  'Starter prompts': 'آغاز کے پرامپٹ',
  'Buttons a visitor can press to start, up to six.':
    'بٹن جنہیں دبا کر وزیٹر بات شروع کر سکتا ہے، زیادہ سے زیادہ چھ۔',
  'Starter prompt {number}': 'آغاز کا پرامپٹ {number}',
  'Remove starter prompt {number}': 'آغاز کا پرامپٹ {number} ہٹائیں',
  Remove: 'ہٹائیں',
  'Add a starter prompt': 'آغاز کا پرامپٹ شامل کریں',
  Voice: 'آواز',
  'A voice agent: the widget opens on the microphone.': 'آواز والا ایجنٹ: ویجٹ مائیکروفون کے ساتھ کھلتا ہے۔',
  'Voice agent for calls': 'کالوں کے لیے آواز والا ایجنٹ',
  'None: typing only': 'کوئی نہیں: صرف لکھ کر',
  'Opens with': 'کھلنے پر',
  'The text box': 'لکھنے کا خانہ',
  'The microphone': 'مائیکروفون',
  Microphone: 'مائیکروفون',
  'Press once to talk, again to stop': 'بولنے کے لیے ایک بار دبائیں، روکنے کے لیے دوبارہ',
  'Hold to talk': 'بولنے کے لیے دبائے رکھیں',
  Preview: 'پیش منظر',
  'The real widget with these choices. A conversation in it is a real one, with the agent as saved.':
    'انہی انتخابات کے ساتھ اصل ویجٹ۔ اس میں ہونے والی گفتگو اصل ہے، ایجنٹ کی محفوظ ترتیبات کے ساتھ۔',
  'A widget key starts with tk_widget_.': 'ویجٹ کی چابی tk_widget_ سے شروع ہوتی ہے۔',
  'Paste this before </body>': 'اسے </body> سے پہلے چسپاں کریں',
  'Widget key in the tag': 'ٹیگ میں ویجٹ کی چابی',
  'Filled in when you create a key above. A key is shown only once: paste one you kept to reuse it.':
    'اوپر چابی بنانے پر یہ خود بھر جاتی ہے۔ چابی صرف ایک بار دکھائی جاتی ہے: پہلے سے رکھی ہوئی چابی دوبارہ استعمال کرنے کے لیے یہاں چسپاں کریں۔',
  Copied: 'کاپی ہو گیا',
  Copy: 'کاپی کریں',
  'Fix the choices marked above first.': 'پہلے اوپر نشان زدہ انتخاب درست کریں۔',
  'The browser did not let the page copy: select the tag and copy it.':
    'براؤزر نے صفحے کو کاپی نہیں کرنے دیا: ٹیگ منتخب کر کے خود کاپی کریں۔',
  'The tag shows here once it has a widget key.': 'ویجٹ کی چابی ملتے ہی ٹیگ یہاں دکھائی دے گا۔',
  'Revoke {name}? Widgets using it stop at once.':
    '{name} منسوخ کریں؟ اسے استعمال کرنے والے ویجٹ فوراً بند ہو جائیں گے۔',
  'Put an agent on your website': 'اپنی ویب سائٹ پر ایجنٹ لگائیں',
  Agent: 'ایجنٹ',
  'New widget key': 'نئی ویجٹ چابی',
  Name: 'نام',
  'Shop website': 'دکان کی ویب سائٹ',
  "Your website's domains (one or more)": 'آپ کی ویب سائٹ کے ڈومین (ایک یا زیادہ)',
  'Create key and script tag': 'چابی اور اسکرپٹ ٹیگ بنائیں',
  'Only owners create keys; ask yours for a widget key.':
    'چابیاں صرف مالکان بناتے ہیں؛ ویجٹ کی چابی اپنے مالک سے مانگیں۔',
  'Widget keys': 'ویجٹ کی چابیاں',
  'No widget keys yet.': 'ابھی کوئی ویجٹ چابی نہیں۔',
  Revoke: 'منسوخ کریں',
}
export default ur
