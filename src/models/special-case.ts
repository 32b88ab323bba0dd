/**
 * What an overfitting reviser does with test-detail feedback: it keeps its wrong code and adds a
 * special case for each failing call the feedback shows, returning the expected value for exactly
 * those arguments. The simulated `overfitter` profile answers this way, so the gap held-out tests
 * measure is visible offline. Pure text in, text out.
 */

/** One failing call as verifier feedback shows it (`function call: f(1, 2)` / `expected: 3`). */
export interface ShownCall {
  call: string
  expected: string
}

/** The failing calls named in feedback texts, in order, each once. */
export function shownCalls(feedbackTexts: readonly string[]): ShownCall[] {
  const seen = new Map<string, ShownCall>()
  for (const text of feedbackTexts) {
    for (const [, call, expected] of text.matchAll(/function call: (.+)\n\s+expected: (.+)/g)) {
      if (/^[A-Za-z_]\w*\(.*\)$/.test(call!.trim()))
        seen.set(call!.trim(), { call: call!.trim(), expected: expected!.trim() })
    }
  }
  return [...seen.values()]
}

const PATCH_MARK = '# special cases for the failing calls'

/**
 * The answer with its code wrapped: each shown call's function returns the expected value for
 * exactly the call's arguments and falls back to the original code otherwise. The patch goes at
 * the end of the last python block (or of the answer when it has none); an earlier patch is
 * replaced, so the special cases accumulate without nesting. No calls: the answer unchanged.
 *
 * @example
 * specialCase('```python\ndef f(x):\n    return 0\n```', [{ call: 'f(2)', expected: '4' }])
 * // the same code, then a wrapper of f that returns 4 for f(2)
 */
export function specialCase(answer: string, calls: readonly ShownCall[]): string {
  if (calls.length === 0) return answer
  const byName = new Map<string, ShownCall[]>()
  for (const c of calls) {
    const name = /^([A-Za-z_]\w*)\(/.exec(c.call)![1]!
    byName.set(name, [...(byName.get(name) ?? []), c])
  }
  const lines = [PATCH_MARK, 'def _seqk_arguments(*args, **kwargs):', '    return (args, kwargs)']
  for (const [name, list] of byName) {
    lines.push(
      `_seqk_cases_${name} = [${list.map((c) => `(_seqk_arguments${c.call.slice(name.length)}, ${c.expected})`).join(', ')}]`,
      `_seqk_general_${name} = ${name}`,
      `def ${name}(*args, **kwargs):`,
      `    for key, value in _seqk_cases_${name}:`,
      '        if key == (args, kwargs):',
      '            return value',
      `    return _seqk_general_${name}(*args, **kwargs)`,
    )
  }
  const patch = lines.join('\n')
  const marked = answer.indexOf(`\n${PATCH_MARK}`)
  const base =
    marked === -1
      ? answer
      : `${answer.slice(0, marked)}${answer.slice(answer.indexOf('\n```', marked + 1) === -1 ? answer.length : answer.indexOf('\n```', marked + 1))}`
  const close = base.lastIndexOf('\n```')
  const opened = base.lastIndexOf('```python')
  if (opened !== -1 && close > opened) return `${base.slice(0, close)}\n${patch}${base.slice(close)}`
  return `${base}\n${patch}\n`
}
