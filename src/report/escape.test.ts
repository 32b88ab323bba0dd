import { describe, expect, it } from 'vitest'
import { escapeHtml, jsonForScript } from './escape.js'

describe('escapeHtml', () => {
  it('escapes the five HTML-significant characters', () => {
    expect(escapeHtml(`<a href="x" title='y'>&</a>`)).toBe(
      '&lt;a href=&quot;x&quot; title=&#39;y&#39;&gt;&amp;&lt;/a&gt;',
    )
    expect(escapeHtml('plain text · ünïcode')).toBe('plain text · ünïcode')
  })
})

describe('jsonForScript', () => {
  it('cannot close the script element or open a comment, and parses back unchanged', () => {
    const value = {
      answer: '</script><script>alert(1)</script><!-- x -->',
      amp: 'a && b',
      line: 'a\u2028b\u2029c',
      nested: ['</SCRIPT>'],
    }
    const json = jsonForScript(value)
    expect(json).not.toMatch(/[<>&\u2028\u2029]/)
    expect(JSON.parse(json)).toEqual(value)
  })
})
