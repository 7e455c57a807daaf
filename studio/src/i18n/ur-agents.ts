/** Urdu words of the studio's agents (keyed by the English in the source; see ../i18n.tsx). */
const ur: Record<string, string> = {
  'Create an agent: choose text or voice, and tell it what to do.':
    'ایک ایجنٹ بنائیں: تحریر یا آواز چنیں، اور اسے بتائیں کہ کیا کرنا ہے۔',
  'Try it on its page, then make it live.': 'اس کے صفحے پر آزمائیں، پھر اسے فعال کریں۔',
  'Put it on your website': 'اسے اپنی ویب سائٹ پر لگائیں',
  ': a key for your domain and one script tag.': ': آپ کے ڈومین کے لیے ایک چابی اور ایک اسکرپٹ ٹیگ۔',
  'Read what visitors said': 'پڑھیں کہ مہمانوں نے کیا کہا',
  ' and ': ' اور ',
  About: 'تعارف',
  'After the conversation': 'گفتگو کے بعد',
  Commercial: 'تجارتی',
  Conversation: 'گفتگو',
  'Conversations and their costs are kept; the agent stops answering at once.':
    'گفتگو اور ان کی لاگت محفوظ رہتی ہے؛ ایجنٹ فوراً جواب دینا بند کر دیتا ہے۔',
  'Delete agent': 'ایجنٹ حذف کریں',
  'Delete {name}? Its conversations stay; the agent cannot be restored.':
    '{name} حذف کریں؟ اس کی گفتگو باقی رہے گی؛ ایجنٹ واپس نہیں لایا جا سکتا۔',
  'Description (for your team)': 'تفصیل (آپ کی ٹیم کے لیے)',
  'Fallback model (when the first fails)': 'متبادل ماڈل (جب پہلا ناکام ہو)',
  'Farewell (said when the call ends)': 'الوداع (کال ختم ہونے پر کہا جاتا ہے)',
  Greeting: 'خوش آمدید',
  Inactive: 'غیر فعال',
  Live: 'فعال',
  'Make it live': 'اسے فعال کریں',
  'Model and voice': 'ماڈل اور آواز',
  Model: 'ماڈل',
  Private: 'نجی',
  'Private: you, admins and owners. Public: your whole team. Commercial: every organization.':
    'نجی: آپ، منتظمین اور مالکان۔ عوامی: آپ کی پوری ٹیم۔ تجارتی: ہر تنظیم۔',
  Public: 'عوامی',
  'Save settings': 'ترتیبات محفوظ کریں',
  'Saved.': 'محفوظ ہو گیا۔',
  'Seconds of silence before it hangs up (10–60)': 'کال بند کرنے سے پہلے خاموشی کے سیکنڈ (10–60)',
  Settings: 'ترتیبات',
  "Summarise it: a summary, the visitor's mood and the outcome": 'خلاصہ کریں: خلاصہ، مہمان کا مزاج اور نتیجہ',
  'Take it offline': 'اسے غیر فعال کریں',
  'Temperature (0.1 steady – 1.0 inventive)': 'درجہ حرارت (0.1 مستحکم – 1.0 تخلیقی)',
  'The agent, with its greeting': 'ایجنٹ، اپنے خوش آمدید کے ساتھ',
  'The visitor': 'مہمان',
  'Who sees it': 'اسے کون دیکھتا ہے',
  'Who speaks first': 'پہلے کون بولتا ہے',
  "Your organization has no key for {providers}, so the platform's choice was saved instead{replaced}.":
    'آپ کی تنظیم کے پاس {providers} کی چابی نہیں، اس لیے پلیٹ فارم کا انتخاب محفوظ کیا گیا{replaced}۔',
  id: 'شناخت',
  'model {id}': 'ماڈل {id}',
  'speech to text {id}': 'آواز سے متن {id}',
  'Hi! How can I help?': 'سلام! میں کیسے مدد کر سکتا ہوں؟',
  'Only owners and admins, or the member who made it, can change this agent.':
    'یہ ایجنٹ صرف مالکان اور منتظمین، یا اسے بنانے والا رکن بدل سکتا ہے۔',
}
export default ur
