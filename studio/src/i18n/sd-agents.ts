/** Sindhi words of the studio's agents (keyed by the English in the source; see ../i18n.tsx). */
const sd: Record<string, string> = {
  'Create an agent: choose text or voice, and tell it what to do.':
    'هڪ ايجنٽ ٺاهيو: لکت يا آواز چونڊيو، ۽ ان کي ٻڌايو ته ڇا ڪرڻو آهي.',
  'Try it on its page, then make it live.': 'ان جي صفحي تي آزمايو، پوءِ ان کي سرگرم ڪريو.',
  'Put it on your website': 'ان کي پنهنجي ويب سائيٽ تي لڳايو',
  ': a key for your domain and one script tag.': ': توهان جي ڊومين لاءِ هڪ ڪنجي ۽ هڪ اسڪرپٽ ٽيگ.',
  'Read what visitors said': 'پڙهو ته مهمانن ڇا چيو',
  ' and ': ' ۽ ',
  About: 'تعارف',
  'After the conversation': 'ڳالهه ٻولهه کان پوءِ',
  Commercial: 'تجارتي',
  Conversation: 'ڳالهه ٻولهه',
  'Conversations and their costs are kept; the agent stops answering at once.':
    'ڳالهيون ۽ انهن جو خرچ محفوظ رهن ٿا؛ ايجنٽ فوراً جواب ڏيڻ بند ڪري ٿو.',
  'Delete agent': 'ايجنٽ ختم ڪريو',
  'Delete {name}? Its conversations stay; the agent cannot be restored.':
    '{name} ختم ڪريو؟ ان جون ڳالهيون رهنديون؛ ايجنٽ واپس نه آڻي سگهبو.',
  'Description (for your team)': 'وضاحت (توهان جي ٽيم لاءِ)',
  'Fallback model (when the first fails)': 'متبادل ماڊل (جڏهن پهريون ناڪام ٿئي)',
  'Farewell (said when the call ends)': 'الوداع (ڪال ختم ٿيڻ تي چيو وڃي ٿو)',
  Greeting: 'ڀلي ڪار',
  Inactive: 'غير سرگرم',
  Live: 'سرگرم',
  'Make it live': 'ان کي سرگرم ڪريو',
  'Model and voice': 'ماڊل ۽ آواز',
  Model: 'ماڊل',
  Private: 'ذاتي',
  'Private: you, admins and owners. Public: your whole team. Commercial: every organization.':
    'ذاتي: توهان، منتظم ۽ مالڪ. عوامي: توهان جي سڄي ٽيم. تجارتي: هر تنظيم.',
  Public: 'عوامي',
  'Save settings': 'سيٽنگون محفوظ ڪريو',
  'Saved.': 'محفوظ ٿي ويو.',
  'Seconds of silence before it hangs up (10–60)': 'ڪال بند ڪرڻ کان اڳ خاموشيءَ جا سيڪنڊ (10–60)',
  Settings: 'سيٽنگون',
  "Summarise it: a summary, the visitor's mood and the outcome": 'خلاصو ڪريو: خلاصو، مهمان جو مزاج ۽ نتيجو',
  'Take it offline': 'ان کي بند ڪريو',
  'Temperature (0.1 steady – 1.0 inventive)': 'درجه حرارت (0.1 مستحڪم – 1.0 تخليقي)',
  'The agent, with its greeting': 'ايجنٽ، پنهنجي ڀلي ڪار سان',
  'The visitor': 'مهمان',
  'Who sees it': 'ان کي ڪير ڏسي ٿو',
  'Who speaks first': 'پهرين ڪير ڳالهائي ٿو',
  "Your organization has no key for {providers}, so the platform's choice was saved instead{replaced}.":
    'توهان جي تنظيم وٽ {providers} جي ڪنجي ناهي، تنهنڪري پليٽ فارم جي چونڊ محفوظ ڪئي وئي{replaced}.',
  id: 'سڃاڻپ',
  'model {id}': 'ماڊل {id}',
  'speech to text {id}': 'آواز مان لکت {id}',
  'Hi! How can I help?': 'سلام! مان ڪيئن مدد ڪري سگهان ٿو؟',
  'Only owners and admins, or the member who made it, can change this agent.':
    'هن ايجنٽ کي صرف مالڪ ۽ منتظم، يا ان کي ٺاهيندڙ ميمبر بدلائي سگهي ٿو.',
}
export default sd
