/** Sindhi words of transfers to a person and the keypad (agent settings), keyed by the English in the source. */
const sd: Record<string, string> = {
  'A call was transferred to a person': 'هڪ ڪال ڪنهن ماڻهوءَ ڏانهن منتقل ڪئي وئي',
  'Transfer to a person': 'ڪنهن ماڻهوءَ ڏانهن منتقل ڪريو',
  'People the agent may put a caller through to, with a phone number (+14155550123) or a SIP address (sip:desk@pbx.example.com). Transfers dial out on your organization’s phone number.':
    'اهي ماڻهو جن سان ايجنٽ ڪال ڪندڙ کي ملائي سگهي ٿو، فون نمبر (+14155550123) يا SIP پتي (sip:desk@pbx.example.com) سان. منتقلي توهان جي تنظيم جي فون نمبر تان ڊائل ٿئي ٿي.',
  'New destination': 'نئين منزل',
  'Phone number or SIP address': 'فون نمبر يا SIP پتو',
  'When to transfer here': 'هتي ڪڏهن منتقل ڪجي',
  How: 'ڪيئن',
  'Cold: put the caller through at once': 'سڌو: ڪال ڪندڙ کي فوراً ملايو',
  'Warm: brief the person first, then join them': 'ٻڌائي ڪري: پهرين ماڻهوءَ کي ٻڌايو، پوءِ ملايو',
  'Add a destination': 'منزل شامل ڪريو',
}
export default sd
