// Every reference solution of HumanEval Pro (164) and MBPP Pro (378) passes our python-tests
// verifier, and broken references fail with the call, the expected and the actual value in the
// verifier feedback. Reads the real data from ../shared/benchmarks/ (never copied into this
// repository) and skips with the reason when it is absent.
import { availableParallelism } from 'node:os'
import { describe, expect, it } from 'vitest'
import { loadCodeEvalPro, referenceCode, type CodeEvalProEntry } from '../src/benchmarks/index.js'
import { feedback } from '../src/feedback/index.js'
import { verifiers, type Verdict } from '../src/verifiers/index.js'
import { mapConcurrent } from '../src/protocol/concurrency.js'
import { codeEvalProFiles, missingData } from '../src/benchmarks/test-helpers.js'

const files = codeEvalProFiles
const skipReason = missingData(...Object.values(files))
const present = skipReason === undefined

const CONCURRENCY = Math.min(8, Math.max(4, availableParallelism()))

function codeAnswer(code: string): string {
  return `\`\`\`python\n${code}\n\`\`\`\n`
}

/** The verifier feedback the actor would see for this verdict. */
async function render(entry: CodeEvalProEntry, answer: string, verdict: Verdict): Promise<string> {
  const rendered = await feedback
    .verifier()
    .render({ task: entry.task, attempt: 1, repeat: 0, answer, verdict, history: [] })
  return rendered.text
}

// Without the data: Vitest's own skip with a note, so the reporter shows why.
if (!present) {
  describe('reference solutions of HumanEval Pro and MBPP Pro', () => {
    it('needs ../shared/benchmarks/', (ctx) => ctx.skip(skipReason!))
  })
}

describe.runIf(present)('reference solutions of HumanEval Pro and MBPP Pro', () => {
  it.each(Object.keys(files) as (keyof typeof files)[])(
    'every %s reference solution passes the python-tests verifier',
    async (benchmark) => {
      const entries = loadCodeEvalPro(files[benchmark], { benchmark })
      expect(entries).toHaveLength(benchmark === 'humaneval-pro' ? 164 : 378)
      const verifier = verifiers.pythonTests()
      const verdicts = await mapConcurrent(entries, CONCURRENCY, (e) => verifier.verify(e.task, e.reference))
      const failures = entries
        .map((e, i) => ({ id: e.task.id, verdict: verdicts[i] as Verdict }))
        .filter((f) => !f.verdict.pass)
        .map(
          (f) =>
            `${f.id}: ${f.verdict.diagnostics.outcome}: ${f.verdict.diagnostics.summary}\n${JSON.stringify(f.verdict.diagnostics.tests?.filter((t) => !t.pass) ?? f.verdict.diagnostics.error, null, 2)}`,
        )
      expect(failures, failures.join('\n\n')).toEqual([])
    },
    120_000,
  )

  describe('broken reference solutions fail with the call, expected and actual value in the feedback', () => {
    // Tasks whose first test is `assert CALL == LITERAL` with one `==`: the feedback's expected
    // value is then the literal as Python prints it.
    const picks = present
      ? [
          ...loadCodeEvalPro(files['humaneval-pro'], { benchmark: 'humaneval-pro', ids: [3, 10, 12] }),
          ...loadCodeEvalPro(files['mbpp-pro'], { benchmark: 'mbpp-pro', ids: [0, 1, 19] }),
        ]
      : []
    const verifier = verifiers.pythonTests()

    /** The first test's call (left of `==`) and expected value (right of it). */
    function firstAssert(entry: CodeEvalProEntry): { call: string; expected: string } {
      const line = entry.record.test_code.split('\n').find((l) => l.startsWith('assert ')) ?? ''
      const m = /^assert (.+?) == (.+?)\s*$/.exec(line)
      if (!m || line.split(' == ').length !== 2)
        throw new Error(`${entry.task.id}: first test is not a plain 'assert CALL == EXPECTED': ${line}`)
      return { call: m[1] as string, expected: m[2] as string }
    }

    it.each(picks.map((e) => [e.task.id, e] as const))('%s: a wrong return value for one input', async (_id, entry) => {
      const { call, expected } = firstAssert(entry)
      const main = entry.task.entryPoint as string
      const args = call.slice(call.indexOf('(') + 1, call.lastIndexOf(')'))
      // Wrap the main function: right for every input but the first test's, where it returns a sentinel.
      const code = `${referenceCode(entry.record)}


_reference_${main} = ${main}
_probe = (lambda *a, **k: (a, k))(${args})


def ${main}(*args, **kwargs):
    if (args, kwargs) == _probe:
        return -12345
    return _reference_${main}(*args, **kwargs)
`
      const answer = codeAnswer(code)
      const verdict = await verifier.verify(entry.task, answer)
      expect(verdict.pass).toBe(false)
      const failing = verdict.diagnostics.tests?.filter((t) => !t.pass) ?? []
      expect(failing.map((t) => t.index)).toContain(0)
      const text = await render(entry, answer, verdict)
      expect(text).toContain('Failed test details:')
      expect(text).toContain(`function call: ${call}`)
      expect(text).toContain(`expected: ${expected}`)
      expect(text).toContain('got: -12345')
    })

    it.each(picks.map((e) => [e.task.id, e] as const))(
      '%s: the main function under another name',
      async (_id, entry) => {
        const { call, expected } = firstAssert(entry)
        const main = entry.task.entryPoint as string
        const code = referenceCode(entry.record).replace(new RegExp(`^def ${main}\\(`, 'm'), `def ${main}_v2(`)
        const answer = codeAnswer(code)
        const verdict = await verifier.verify(entry.task, answer)
        expect(verdict.pass).toBe(false)
        expect(verdict.diagnostics.tests?.every((t) => !t.pass)).toBe(true)
        const text = await render(entry, answer, verdict)
        expect(text).toContain(`function call: ${call}`)
        expect(text).toContain(`expected: ${expected}`)
        expect(text).toContain(`got: NameError: name '${main}' is not defined`)
      },
    )

    it.each(picks.map((e) => [e.task.id, e] as const))(
      '%s: an exception raised in the main function',
      async (_id, entry) => {
        const { call, expected } = firstAssert(entry)
        const main = entry.task.entryPoint as string
        const code = `${referenceCode(entry.record)}


_reference_${main} = ${main}


def ${main}(*args, **kwargs):
    raise ValueError('not implemented for ' + repr(args))
`
        const answer = codeAnswer(code)
        const verdict = await verifier.verify(entry.task, answer)
        expect(verdict.pass).toBe(false)
        const text = await render(entry, answer, verdict)
        expect(text).toContain(`function call: ${call}`)
        expect(text).toContain(`expected: ${expected}`)
        expect(text).toMatch(/got: ValueError: not implemented for \(.*\) \(candidate line \d+\)/)
      },
    )
  })
})
