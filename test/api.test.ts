// The public face: API.md is the committed report of every entry point's exports, so a change of
// the face shows as a diff someone reviewed; the root stays small, every name on it is documented
// (in the README, or by TSDoc: with an example for a value), and every export has a purpose.
import { readFileSync, readdirSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { API_FILE, apiReport, firstSentence, isRuntime, renderApiReport } from '../scripts/api-report.js'
import * as root from '../src/index.js'

const report = apiReport()
const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8')

describe('the public API', () => {
  it('API.md is the report of the exports as they are (npm run api rewrites it)', () => {
    expect(readFileSync(API_FILE, 'utf8'), 'the exports changed: run `npm run api` and review API.md').toBe(
      renderApiReport(report),
    )
  })

  it('the report reads what the package really exports at run time', () => {
    expect(
      report
        .get('vitest-seqk')!
        .filter(isRuntime)
        .map((n) => n.name)
        .sort(),
    ).toEqual(Object.keys(root).sort())
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

  it('every export of every entry point has a one-line purpose, from its TSDoc', () => {
    const missing = [...report].flatMap(([entry, names]) =>
      names.filter((n) => n.purpose === '').map((n) => `${entry}: ${n.name}`),
    )
    expect(missing).toEqual([])
    for (const names of report.values())
      for (const n of names) expect(n.purpose.length, n.name).toBeLessThanOrEqual(110)
  })

  it('a purpose is the first sentence of the TSDoc, links as their text, cut at a word', () => {
    expect(firstSentence('Checks what {@link Verifier.verify} returned. Then more.')).toBe(
      'Checks what Verifier.verify returned',
    )
    expect(firstSentence('The built-in verifiers, by name: `pythonTests` (hidden tests; e.g. HumanEval).')).toBe(
      'The built-in verifiers, by name',
    )
    expect(firstSentence('Reads `a.b` files (one per run: see docs), e.g. the latest.')).toBe(
      'Reads `a.b` files (one per run: see docs), e.g. the latest',
    )
    expect(firstSentence('`off`: call the model. `record`: store it.')).toBe(
      '`off`: call the model. `record`: store it.',
    )
    const long = firstSentence(`${'word '.repeat(40)}end.`)
    expect(long).toMatch(/^(word )+word…$/)
    expect(long.length).toBeLessThanOrEqual(110)
  })

  it('the root holds what eval files and custom components use; cell planning is on vitest-seqk/cells', () => {
    for (const name of ['planCells', 'resolveOptions', 'isPromiseLike'])
      expect(Object.keys(root), name).not.toContain(name)
    const cells = report.get('vitest-seqk/cells')!.map((n) => n.name)
    expect(cells.sort()).toEqual(['CellPlan', 'isPromiseLike', 'planCells', 'ResolvedOptions', 'resolveOptions'].sort())
  })

  it('TSDoc speaks only of the package: no design-document sections, no issue numbers', () => {
    const src = new URL('../src/', import.meta.url).pathname
    const files = readdirSync(src, { recursive: true, encoding: 'utf8' }).filter(
      (f) => f.endsWith('.ts') && !/\.(test|bench)\.ts$/.test(f),
    )
    const found = files.flatMap((file) =>
      [...readFileSync(join(src, file), 'utf8').matchAll(/\/\*\*[\s\S]*?\*\//g)].flatMap((m) =>
        /DESIGN|STYLE\.md|SOURCES\.md/.test(m[0]) || /\bissues? #?\d/i.test(m[0])
          ? [`${file}: ${m[0].slice(0, 80)}`]
          : [],
      ),
    )
    expect(found).toEqual([])
  })
})
