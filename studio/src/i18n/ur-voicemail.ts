/** Urdu words of the voicemail and phone-menu setting (agent settings), keyed by the English in the source. */
const ur: Record<string, string> = {
  'Voicemail and phone menus': 'وائس میل اور فون مینو',
  'On outbound calls the agent first listens to who answered. A person: the conversation goes on. A voicemail box or a phone menu: this decides.':
    'باہر جانے والی کالوں پر ایجنٹ پہلے سنتا ہے کہ کس نے جواب دیا۔ کوئی فرد: گفتگو جاری رہتی ہے۔ وائس میل یا فون مینو: یہ ترتیب فیصلہ کرتی ہے۔',
  'On a voicemail box': 'وائس میل پر',
  'Hang up': 'کال ختم کریں',
  'Leave a message after the greeting, then hang up': 'سلام کے بعد پیغام چھوڑیں، پھر کال ختم کریں',
  Message: 'پیغام',
  'May use {{field}} placeholders, filled from the contact like the prompt’s.':
    '{{field}} جگہیں استعمال کر سکتے ہیں، جو پرامپٹ کی طرح رابطے سے بھری جاتی ہیں۔',
  'On a phone menu': 'فون مینو پر',
  'Get through it with the keypad': 'کی پیڈ سے آگے بڑھیں',
}
export default ur
