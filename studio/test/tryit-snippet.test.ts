import { describe, expect, it } from 'vitest'
import { DEFAULT_CHOICES } from '../src/install/choices.ts'
import { contrastWithWhite, isColour, snippetFor, widgetSettings } from '../src/install/snippet.ts'

/** The customiser's choices as widget attributes and as the tag an owner pastes (pure, no browser). */
const text = { id: 'agent_text', agentArchitecture: 'text' }
const voice = { id: 'agent_voice', agentArchitecture: 'pipeline' }

describe('the script tag of the customiser', () => {
  it('says only what was chosen: the defaults make the plain tag', () => {
    expect(
      snippetFor({
        origin: 'https://parley.example',
        agent: text,
        key: 'tk_widget_k',
        choices: DEFAULT_CHOICES,
      }),
    ).toBe(
      '<script src="https://parley.example/widget/parley.js"\n  data-agent-id="agent_text"\n  data-key="tk_widget_k"\n  async></script>',
    )
  })

  it('carries every choice, with prompts as JSON that survives quotes and markup', () => {
    const tag = snippetFor({
      origin: 'https://parley.example',
      agent: text,
      key: 'tk_widget_k',
      choices: {
        ...DEFAULT_CHOICES,
        position: 'start',
        theme: 'dark',
        accent: '#0f766e',
        language: 'sd',
        suggestions: ["What's new?", '  ', '<b>"Sale"</b> & more'],
        voiceAgentId: 'agent_voice',
        opensWith: 'voice',
        voiceInput: 'push-to-talk',
      },
    })
    expect(tag).toContain(
      'data-voice-agent-id="agent_voice"\n  data-mode="voice"\n  data-voice-input="push-to-talk"',
    )
    expect(tag).toContain(
      'data-position="bottom-start"\n  data-theme="dark"\n  data-accent="#0f766e"\n  data-lang="sd"',
    )
    expect(tag).toContain(`data-suggestions='["What&#39;s new?","&lt;b&gt;\\"Sale\\"&lt;/b&gt; &amp; more"]'`)
    // What the browser reads back from that attribute is the prompts' JSON, empty ones left out.
    const attribute = tag.match(/data-suggestions='([^']*)'/)?.[1] ?? ''
    const decoded = attribute
      .replace(/&#39;/g, "'")
      .replace(/&lt;/g, '<')
      .replace(/&gt;/g, '>')
      .replace(/&amp;/g, '&')
    expect(JSON.parse(decoded)).toEqual(["What's new?", '<b>"Sale"</b> & more'])
  })

  it('opens a voice agent on the microphone; a text agent without a voice agent has no voice settings', () => {
    expect(widgetSettings(voice, { ...DEFAULT_CHOICES, voiceAgentId: 'ignored' })).toEqual([
      ['agent-id', 'agent_voice'],
      ['mode', 'voice'],
    ])
    expect(
      widgetSettings(text, { ...DEFAULT_CHOICES, voiceInput: 'push-to-talk', opensWith: 'voice' }),
    ).toEqual([['agent-id', 'agent_text']])
  })

  it('leaves out an accent that is not a colour, and rates a hex accent against white words', () => {
    expect(isColour('#1d4ed8')).toBe(true)
    expect(isColour('red" onload="x')).toBe(false)
    expect(widgetSettings(text, { ...DEFAULT_CHOICES, accent: 'x"><script>' })).toEqual([
      ['agent-id', 'agent_text'],
    ])
    expect(contrastWithWhite('#ffffff')).toBeCloseTo(1)
    expect(contrastWithWhite('#000')).toBeCloseTo(21)
    expect(contrastWithWhite('teal')).toBeNull()
  })
})
