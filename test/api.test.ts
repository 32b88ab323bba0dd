// The public face (issue 16, item 5): API.md is the committed report of every entry point's
// exports, so a change of the face shows as a diff someone reviewed; the root stays small, and
// every name on it is documented (in the README, or by TSDoc: with an example for a value).
import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { API_FILE, apiReport, isRuntime, renderApiReport } from '../scripts/api-report.js'
import * as root from '../src/index.js'

const report = apiReport()
const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8')

describe('the public API', () => {
  it('API.md is the report of the exports as they are (npm run api rewrites it)', () => {
    expect(readFileSync(API_FILE, 'utf8'), 'the exports changed: run `npm run api` and review API.md').toBe(renderApiReport(report))
  })

  it('the report reads what the package really exports at run time', () => {
    expect(report.get('vitest-seqk')!.filter(isRuntime).map((n) => n.name).sort()).toEqual(Object.keys(root).sort())
  })

  it('the root holds at most 80 runtime names', () => {
    expect(Object.keys(root).length).toBeLessThanOrEqual(80)
  })

  it('every name of the root is documented: named in the README, or TSDoc (with an example for a value)', () => {
    const undocumented = report.get('vitest-seqk')!.filter((n) => {
      if (new RegExp(`\`[^\`\\n]*\\b${n.name}\\b[^\`\\n]*\``).test(readme)) return false
      return isRuntime(n) ? !n.example : !n.documented
    })
    expect(undocumented.map((n) => n.name)).toEqual([])
  })
})
