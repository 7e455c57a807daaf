/** Sindhi words of transfers to a person and the keypad (agent settings), keyed by the English in the source. */
const sd: Record<string, string> = {
  'A call was transferred to a person': 'هڪ ڪال ڪنهن ماڻهوءَ ڏانهن منتقل ڪئي وئي',
}
export default sd
