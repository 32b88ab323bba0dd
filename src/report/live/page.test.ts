import { createHash } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { liveScript } from '../client.js'
import { livePage } from './page.js'

describe('the live page', () => {
  const script = liveScript()

  it('is one classic script with no markup sinks and no bundler helpers', () => {
    expect(() => new Function(script)).not.toThrow()
    expect(script).not.toMatch(/^\s*(import|export)\b/m)
    expect(script.toLowerCase()).not.toContain('</script')
    expect(script).not.toMatch(/innerHTML|outerHTML|insertAdjacentHTML|createContextualFragment|document\.write|eval\(/)
    expect(script).not.toMatch(/\b__(name|defProp|export|toESM|commonJS|publicField)\b/)
    expect(liveScript()).toBe(script)
  })

  it('does nothing on a page without its frame', () => {
    expect(() => new Function('document', script)({ getElementById: () => null })).not.toThrow()
  })

  it('allows exactly its inline script and its own origin, and escapes the directory it names', () => {
    const { html, csp } = livePage('/runs/<b>&')
    expect(html).toContain(`<script>${script}</script>`)
    expect(csp).toContain(`script-src 'sha256-${createHash('sha256').update(script).digest('base64')}'`)
    expect(csp).toMatch(/^default-src 'none';/)
    expect(html).toContain('following /runs/&lt;b&gt;&amp;')
  })
})
