import { createHash } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { liveScript } from '../client.js'
import { emptySnapshot, type LiveSnapshot } from './events.js'
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

  it('allows exactly its inline script and its own origin, and escapes what it names', () => {
    const { html, csp } = livePage(emptySnapshot(null, '/runs/<b>&'), 3)
    expect(html).toContain(`<script>${script}</script>`)
    expect(csp).toContain(`script-src 'sha256-${createHash('sha256').update(script).digest('base64')}'`)
    expect(csp).toMatch(/^default-src 'none';/)
    expect(html).toContain('waiting for a run in /runs/&lt;b&gt;&amp;')
    expect(html).toContain('data-last-id="3"')
  })

  it('renders the state at request time, not an empty frame, with the state for the script to start from', () => {
    const snapshot: LiveSnapshot = {
      ...emptySnapshot('r1', '/runs/r1'),
      files: { planned: 1, loaded: 1 },
      cells: [
        {
          key: 'k',
          benchmark: 'b',
          cellId: 'a · binary</td>',
          phase: 'running',
          progress: { done: 3, total: 6, solved: 2, failed: 1, errored: 0, capped: 0 },
          durationMs: null,
          keptDurationMs: null,
          unfinished: null,
          verdict: null,
          failedChecks: null,
          verifierUnstable: null,
        },
      ],
      loadErrors: [{ file: 'x.eval.ts', error: 'SyntaxError: <oops>' }],
    }
    const { html } = livePage(snapshot, 7)
    expect(html).toContain('>running · 3 of 6 trajectories</span>')
    expect(html).toContain('<td>a · binary&lt;/td&gt;</td>')
    expect(html).toContain('<span class="count">3/6</span>')
    expect(html).toContain('x.eval.ts failed to load: SyntaxError: &lt;oops&gt;')
    expect(html).not.toContain('connecting…')
    const data = /<script type="application\/json" id="live-data">(.*?)<\/script>/s.exec(html)![1]!
    expect(JSON.parse(data)).toEqual(snapshot)
  })
})
