import { describe, expect, it } from 'vitest'
import { clientScript } from './client.js'

describe('the report script', () => {
  const script = clientScript()

  it('is one valid classic script that cannot end its own script element', () => {
    expect(() => new Function(script)).not.toThrow()
    // A classic <script>, not a module: no import or export survives the bundle.
    expect(script).not.toMatch(/^\s*(import|export)\b/m)
    expect(script.toLowerCase()).not.toContain('</script')
    // It builds the page with textContent: model text must never become markup.
    expect(script).not.toMatch(/innerHTML|outerHTML|insertAdjacentHTML|createContextualFragment|document\.write|eval\(/)
  })

  it('has no bundler helpers and is the same on every call', () => {
    // Helpers such as keepNames' __name would be code of esbuild's, not ours, on the page.
    expect(script).not.toMatch(/\b__(name|defProp|export|toESM|commonJS|publicField)\b/)
    expect(clientScript()).toBe(script)
  })

  it('does nothing on a page without report data', () => {
    const fakeDocument = { getElementById: () => null }
    expect(() => new Function('document', script)(fakeDocument)).not.toThrow()
  })
})
