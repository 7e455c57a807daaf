/** Sindhi words of Try it and the widget customiser (studio-tryit), keyed by the English in the source. */
const sd: Record<string, string> = {
  'The widget could not be loaded from this server. Reload the page to try again.':
    'هن سرور تان ويجيٽ لوڊ نه ٿي سگهيو. ٻيهر ڪوشش لاءِ صفحو ٻيهر لوڊ ڪريو.',
  'Try it': 'آزمائي ڏسو',
  'Talk to the draft': 'ڊرافٽ سان ڳالهايو',
  'Replies use the saved draft, not the live version. Visitors still get the live version.':
    'جواب محفوظ ڪيل ڊرافٽ مان اچن ٿا، لائيو ورزن مان نه. گهمڻ وارن کي اڃا به لائيو ورزن ملي ٿو.',
  'Talk to it': 'ان سان ڳالهايو',
  Hide: 'لڪايو',
  'Resetting…': 'نئين سر شروع ٿي رهيو آهي…',
  'Reset conversation': 'ڳالهه ٻولهه نئين سر شروع ڪريو',
  'The widget your visitors get, talking to this agent. These conversations are billed and listed like any other.':
    'اهو ئي ويجيٽ جيڪو توهان جي ويب سائيٽ تي ايندڙن کي ملي ٿو، هن ايجنٽ سان ڳالهائيندي. اهي ڳالهيون به ٻين وانگر بل ٿين ٿيون ۽ لسٽ ۾ اچن ٿيون.',
  'This agent is not live: only the studio can talk to it until you make it live.':
    'هي ايجنٽ لائيو ناهي: جيستائين توهان ان کي لائيو نه ڪريو، رڳو اسٽوڊيو ان سان ڳالهائي سگهي ٿو.',
  'It answers by voice: press the microphone and let your browser use it.':
    'هي آواز ۾ جواب ڏئي ٿو: مائڪروفون دٻايو ۽ پنهنجي برائوزر کي ان کي استعمال ڪرڻ ڏيو.',
  'Settings saved: replies follow them from your next message. Reset to start over with the greeting.':
    'سيٽنگون محفوظ ٿي ويون: توهان جي ايندڙ پيغام کان جواب انهن مطابق ٿيندا. ڀليڪار واري پيغام سان نئين سر شروع ڪرڻ لاءِ ڳالهه ٻولهه ٻيهر شروع ڪريو.',
  'Not a colour: write one such as #1d4ed8, rgb(29 78 216) or teal.':
    'هي رنگ ناهي: ڪو رنگ لکو، جيئن #1d4ed8، rgb(29 78 216) يا teal.',
  'Write the prompt, or remove it.': 'پرامپٽ لکو، يا ان کي هٽايو.',
  'How it looks': 'هي ڪيئن ٿو لڳي',
  Position: 'جاءِ',
  'Bottom right': 'هيٺ ساڄي',
  'Bottom left': 'هيٺ کاٻي',
  'Urdu and Sindhi widgets mirror it.': 'اردو ۽ سنڌي ويجيٽ ۾ هي ابتو ٿي وڃي ٿو.',
  Theme: 'ٿيم',
  "As the visitor's system": 'ايندڙ جي سسٽم مطابق',
  Light: 'روشن',
  Dark: 'اونداهو',
  'Accent colour': 'نمايان رنگ',
  "Empty keeps the widget's blue.": 'خالي ڇڏيو ته ويجيٽ جو پنهنجو نيرو رنگ رهندو.',
  'Pick the accent colour': 'نمايان رنگ چونڊيو',
  'White words on this colour are hard to read (contrast {ratio}:1; aim for 4.5:1 or more).':
    'هن رنگ تي اڇا لفظ پڙهڻ ڏکيا آهن (ڪنٽراسٽ {ratio}:1؛ گهٽ ۾ گهٽ 4.5:1 رکو).',
  "The page's own language": 'صفحي جي پنهنجي ٻولي',
  'Starter prompts': 'شروعاتي پرامپٽ',
  'Buttons a visitor can press to start, up to six.':
    'بٽڻ جن کي دٻائي ايندڙ ڳالهه شروع ڪري سگهي ٿو، وڌ ۾ وڌ ڇهه.',
  'Starter prompt {number}': 'شروعاتي پرامپٽ {number}',
  'Remove starter prompt {number}': 'شروعاتي پرامپٽ {number} هٽايو',
  Remove: 'هٽايو',
  'Add a starter prompt': 'شروعاتي پرامپٽ شامل ڪريو',
  Voice: 'آواز',
  'A voice agent: the widget opens on the microphone.': 'آواز وارو ايجنٽ: ويجيٽ مائڪروفون سان کلي ٿو.',
  'Voice agent for calls': 'ڪالن لاءِ آواز وارو ايجنٽ',
  'None: typing only': 'ڪو به نه: رڳو لکي',
  'Opens with': 'کلڻ تي',
  'The text box': 'لکڻ وارو خانو',
  'The microphone': 'مائڪروفون',
  Microphone: 'مائڪروفون',
  'Press once to talk, again to stop': 'ڳالهائڻ لاءِ هڪ ڀيرو دٻايو، روڪڻ لاءِ ٻيهر',
  'Hold to talk': 'ڳالهائڻ لاءِ دٻائي رکو',
  Preview: 'اڳواٽ ڏيک',
  'The real widget with these choices. A conversation in it is a real one, with the agent as saved.':
    'انهن چونڊن سان اصل ويجيٽ. ان ۾ ٿيندڙ ڳالهه ٻولهه اصل آهي، ايجنٽ جي محفوظ سيٽنگن سان.',
  'A widget key starts with tk_widget_.': 'ويجيٽ جي ڪنجي tk_widget_ سان شروع ٿئي ٿي.',
  'Paste this before </body>': 'هي </body> کان اڳ چنبڙايو',
  'Widget key in the tag': 'ٽيگ ۾ ويجيٽ جي ڪنجي',
  'Filled in when you create a key above. A key is shown only once: paste one you kept to reuse it.':
    'مٿي ڪنجي ٺاهڻ تي پاڻهي ڀرجي ٿي. ڪنجي رڳو هڪ ڀيرو ڏيکاري وڃي ٿي: اڳ ۾ رکيل ڪنجي ٻيهر استعمال ڪرڻ لاءِ هتي چنبڙايو.',
  Copied: 'ڪاپي ٿي ويو',
  Copy: 'ڪاپي ڪريو',
  'Fix the choices marked above first.': 'پهرين مٿي نشان لڳل چونڊون درست ڪريو.',
  'The browser did not let the page copy: select the tag and copy it.':
    'برائوزر صفحي کي ڪاپي ڪرڻ نه ڏنو: ٽيگ چونڊي پاڻ ڪاپي ڪريو.',
  'The tag shows here once it has a widget key.': 'ويجيٽ جي ڪنجي ملندي ئي ٽيگ هتي ڏيکاربو.',
  'Revoke {name}? Widgets using it stop at once.':
    '{name} منسوخ ڪريو؟ ان کي استعمال ڪندڙ ويجيٽ هڪدم بند ٿي ويندا.',
  'Put an agent on your website': 'پنهنجي ويب سائيٽ تي ايجنٽ لڳايو',
  Agent: 'ايجنٽ',
  'New widget key': 'نئين ويجيٽ ڪنجي',
  Name: 'نالو',
  'Shop website': 'دڪان جي ويب سائيٽ',
  "Your website's domains (one or more)": 'توهان جي ويب سائيٽ جا ڊومين (هڪ يا وڌيڪ)',
  'Create key and script tag': 'ڪنجي ۽ اسڪرپٽ ٽيگ ٺاهيو',
  'Only owners create keys; ask yours for a widget key.':
    'ڪنجيون رڳو مالڪ ٺاهين ٿا؛ ويجيٽ جي ڪنجي پنهنجي مالڪ کان گهرو.',
  'Widget keys': 'ويجيٽ جون ڪنجيون',
  'No widget keys yet.': 'اڃا ڪا ويجيٽ ڪنجي ناهي.',
  Revoke: 'منسوخ ڪريو',
}
export default sd
