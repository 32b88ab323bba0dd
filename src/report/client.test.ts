import { describe, expect, it } from 'vitest'
import { CLIENT_JS } from './client.js'

describe('the report script', () => {
  it('is valid JavaScript that cannot end its own script element', () => {
    expect(() => new Function(CLIENT_JS)).not.toThrow()
    expect(CLIENT_JS.toLowerCase()).not.toContain('</script')
    // It builds the page with textContent: model text must never become markup.
    expect(CLIENT_JS).not.toMatch(/innerHTML|outerHTML|insertAdjacentHTML|document\.write|eval\(/)
  })

  it('does nothing on a page without report data', () => {
    const fakeDocument = { getElementById: () => null }
    expect(() => new Function('document', CLIENT_JS)(fakeDocument)).not.toThrow()
  })
})
