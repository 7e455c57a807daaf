/** Sindhi words of the studio's agents (keyed by the English in the source; see ../i18n.tsx). */
const sd: Record<string, string> = {
  'Create an agent: choose text or voice, and tell it what to do.':
    'هڪ ايجنٽ ٺاهيو: لکت يا آواز چونڊيو، ۽ ان کي ٻڌايو ته ڇا ڪرڻو آهي.',
  'Try it on its page, then make it live.': 'ان جي صفحي تي آزمايو، پوءِ ان کي سرگرم ڪريو.',
  'Put it on your website': 'ان کي پنهنجي ويب سائيٽ تي لڳايو',
  ': a key for your domain and one script tag.': ': توهان جي ڊومين لاءِ هڪ ڪنجي ۽ هڪ اسڪرپٽ ٽيگ.',
  'Read what visitors said': 'پڙهو ته مهمانن ڇا چيو',
}
export default sd
