import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { jsonForScript } from './escape.js'
import { html, htmlText, joinHtml, trustedHtml } from './html-template.js'

/** What a browser's parser reads back from escaped text: the five entities escapeHtml writes. */
const unescape = (text: string): string =>
  text.replace(
    /&(lt|gt|quot|#39|amp);/g,
    (_, name: string) => ({ lt: '<', gt: '>', quot: '"', '#39': "'", amp: '&' })[name]!,
  )

const HOSTILE = [
  '<script>alert(1)</script>',
  '</script><script>alert(2)</script>',
  '"><svg onload=alert(3)>',
  "' onmouseover='alert(4)",
  '<!-- <img src=x onerror=alert(5)> -->',
  '&lt;already escaped&gt; & \u2028\u2029',
]

describe('html', () => {
  it('escapes every hostile value in text and in quoted attributes', () => {
    for (const text of HOSTILE) {
      const out = htmlText(html`<p title="${text}" data-x='${text}'>${text}</p>`)
      expect(out.startsWith('<p title="'), out).toBe(true)
      // No value can open a tag or leave its attribute: the only markup is the template's.
      expect(out.match(/[<>]/g)).toEqual(['<', '>', '<', '>'])
      expect(out.slice(10).replace(/" data-x='[^']*'>[^<]*<\/p>$/, '')).not.toMatch(/["']/)
    }
  })

  it('reads back as the original text for any string (property)', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), (text) => {
        const out = htmlText(html`<td title="${text}">${text}</td>`)
        const [, title, body] = /^<td title="([^"]*)">([^<]*)<\/td>$/.exec(out)!
        expect(unescape(title!)).toBe(text)
        expect(unescape(body!)).toBe(text)
      }),
      { seed: 29, numRuns: 500 },
    )
  })

  it('inserts its own markup and trusted markup as they are, arrays joined, nothing for null, undefined and false', () => {
    const item = (x: string) => html`<li>${x}</li>`
    expect(htmlText(html`<ul>${['a', '<b>'].map(item)}</ul>`)).toBe('<ul><li>a</li><li>&lt;b&gt;</li></ul>')
    expect(htmlText(html`<div>${trustedHtml('<svg></svg>')}</div>`)).toBe('<div><svg></svg></div>')
    expect(htmlText(html`${null}${undefined}${false}${0}`)).toBe('0')
    expect(htmlText(joinHtml([item('a'), '<b>', null], ' & '))).toBe('<li>a</li> &amp; &lt;b&gt; &amp; ')
    // A string that looks like markup is still text: only values made by html or trustedHtml pass.
    expect(htmlText(html`${'<li>a</li>'}`)).toBe('&lt;li&gt;a&lt;/li&gt;')
    expect(htmlText(html`${{ toString: () => '<x>' } as unknown as string}`)).toBe('&lt;x&gt;')
  })

  it('keeps a JSON block inside its script element whatever the strings hold', () => {
    const data = { answers: HOSTILE, nested: { '</script>': '<!--' } }
    const out = htmlText(html`<script type="application/json">${trustedHtml(jsonForScript(data))}</script>`)
    expect(out.match(/<\/script/gi)).toHaveLength(1)
    expect(out).not.toContain('<!--')
    expect(JSON.parse(out.slice(out.indexOf('>') + 1, out.lastIndexOf('</script>')))).toEqual(data)
  })
})
