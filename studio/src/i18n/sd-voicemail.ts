/** Sindhi words of the voicemail and phone-menu setting (agent settings), keyed by the English in the source. */
const sd: Record<string, string> = {
  'Voicemail and phone menus': 'وائيس ميل ۽ فون مينيو',
  'On outbound calls the agent first listens to who answered. A person: the conversation goes on. A voicemail box or a phone menu: this decides.':
    'ٻاهرين ڪالن تي ايجنٽ پهرين ٻڌي ٿو ته ڪنهن جواب ڏنو. ڪو ماڻهو: ڳالهه ٻولهه جاري رهي ٿي. وائيس ميل يا فون مينيو: هي سيٽنگ فيصلو ڪري ٿي.',
  'On a voicemail box': 'وائيس ميل تي',
  'Hang up': 'ڪال بند ڪريو',
  'Leave a message after the greeting, then hang up': 'سلام کانپوءِ پيغام ڇڏيو، پوءِ ڪال بند ڪريو',
  Message: 'پيغام',
  'May use {{field}} placeholders, filled from the contact like the prompt’s.':
    '{{field}} جايون استعمال ڪري سگهجن ٿيون، جيڪي پرامپٽ وانگر رابطي مان ڀرجن ٿيون.',
  'On a phone menu': 'فون مينيو تي',
  'Get through it with the keypad': 'ڪي پيڊ سان اڳتي وڌو',
}
export default sd
