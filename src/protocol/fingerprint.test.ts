import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import type { Protocol } from '../core/schemas.js'
import { ProtocolSchema } from '../core/schemas.js'
import { binary } from '../feedback/binary.js'
import { verifierFeedback } from '../feedback/verifier-feedback.js'
import type { ChatModel } from '../models/chat-model.js'
import type { Verifier } from '../verifiers/verifier.js'
import { cellProtocol, type CellSpec } from './cell.js'
import {
  benchmarkContentHash,
  benchmarkHashes,
  canonicalJson,
  protocolDifferences,
  protocolFingerprint,
  sha256,
  taskContentHash,
} from './fingerprint.js'
import { taskMessages } from './task.js'
import {
  changeText,
  fieldChanges,
  INSTRUMENT_FIELDS,
  instrumentOf,
  SUBJECT_FIELDS,
  subjectOf,
} from '../core/instrument.js'
import { fullHistory, lastHistory } from './history.js'
import { defaultPromptBuilder } from './prompt-builder.js'
import type { Task } from './task.js'

/** The same value with the keys of every object in reverse insertion order. */
function reverseKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(reverseKeys)
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value as Record<string, unknown>)
        .reverse()
        .map(([k, v]) => [k, reverseKeys(v)]),
    )
  }
  return value
}

describe('canonicalJson', () => {
  it('does not depend on key order, at any depth', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        expect(canonicalJson(reverseKeys(value))).toBe(canonicalJson(value))
      }),
      { seed: 42 },
    )
  })

  it('is valid JSON for the same value', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        const text = canonicalJson(value)
        expect(canonicalJson(JSON.parse(text))).toBe(text)
        // Same value as plain JSON (modulo key order and -0, which JSON writes as 0).
        expect(canonicalJson(JSON.parse(JSON.stringify(value)))).toBe(text)
      }),
      { seed: 42 },
    )
  })

  it('sorts keys and drops undefined fields like JSON.stringify', () => {
    expect(canonicalJson({ b: 1, a: { d: [2, { y: 1, x: 0 }], c: null }, u: undefined })).toBe(
      '{"a":{"c":null,"d":[2,{"x":0,"y":1}]},"b":1}',
    )
    expect(canonicalJson({ a: 1, b: undefined })).toBe(canonicalJson({ a: 1 }))
  })

  it('equals the plain reference (entries, filter, sort, map, join) on any value, undefined and holes included', () => {
    // eslint-disable-next-line no-sparse-arrays
    expect(canonicalJson([1, , 3])).toBe('[1,,3]')
    const reference = (value: unknown): string => {
      if (Array.isArray(value)) return `[${value.map(reference).join(',')}]`
      if (value !== null && typeof value === 'object') {
        const entries = Object.entries(value as Record<string, unknown>)
          .filter(([, v]) => v !== undefined)
          .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
        return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${reference(v)}`).join(',')}}`
      }
      return JSON.stringify(value) ?? 'null'
    }
    const { value } = fc.letrec((tie) => ({
      value: fc.oneof(
        { depthSize: 'small' },
        fc.jsonValue({ maxDepth: 1 }),
        fc.constant(undefined),
        fc.array(tie('value')),
        fc.sparseArray(tie('value')),
        fc.dictionary(fc.string(), tie('value')),
      ),
    }))
    fc.assert(
      fc.property(value, (v) => {
        expect(canonicalJson(v)).toBe(reference(v))
      }),
      { seed: 42, numRuns: 500 },
    )
  })

  it('distinguishes values that differ', () => {
    expect(canonicalJson({ a: 1 })).not.toBe(canonicalJson({ a: '1' }))
    expect(canonicalJson([1, 2])).not.toBe(canonicalJson([2, 1]))
  })
})

describe('sha256', () => {
  it('is the hex SHA-256 of the text', () => {
    expect(sha256('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad')
  })
})

// ---- protocols --------------------------------------------------------------------------------

const TASKS: Task[] = [
  {
    id: 'a',
    prompt: 'Write f.',
    tests: 'assert f() == 1',
    setup: 'import math',
    metadata: { tag: 'x' },
    simulation: { difficulty: 0.5, correct: ['c'], wrong: ['w'] },
  },
  { id: 'b', prompt: [{ role: 'user', content: 'Write g.' }], tests: 'assert g() == 2' },
]

function actor(params: ChatModel['descriptor']['params'] = { temperature: 0.7 }, model = 'm-1'): ChatModel {
  return {
    id: 'a',
    descriptor: { provider: 'test', model, params },
    async chat() {
      throw new Error('not called')
    },
  }
}

function verifier(settings: Verifier['settings'] = { timeoutMs: 3000 }, version = '1'): Verifier {
  return {
    name: 'python-tests',
    version,
    settings,
    async verify() {
      throw new Error('not called')
    },
  }
}

type ProtocolSpec = Parameters<typeof cellProtocol>[0]

const BASE: ProtocolSpec = {
  benchmark: 'bench',
  tasks: TASKS,
  actor: actor(),
  verifier: verifier(),
  mode: { name: 'verifier', feedback: verifierFeedback() },
  history: fullHistory,
  promptBuilder: defaultPromptBuilder,
  budget: 5,
  discloseBudget: false,
  errors: 'left-out',
}

const protocolOf = (changes: Partial<CellSpec> = {}): Protocol => cellProtocol({ ...BASE, ...changes })

/** Each single change and the dotted paths it must show up under. */
const CHANGES: [string, Partial<CellSpec>, string[]][] = [
  ['budget', { budget: 6 }, ['budget']],
  ['errors counted as failures', { errors: 'failures' }, ['errors', 'errorsCountedAsFailures']],
  ['errors censored', { errors: 'censored' }, ['errors']],
  [
    "a task's criteria",
    { tasks: [{ ...TASKS[0]!, criteria: [{ id: 'c1', text: 'Says hello' }] }, TASKS[1]!] },
    ['benchmark.contentHash'],
  ],
  [
    'feedback settings',
    { mode: { name: 'verifier', feedback: verifierFeedback({ maxTests: 3 }) } },
    ['feedback.settings.maxTests'],
  ],
  [
    'feedback mode',
    { mode: { name: 'binary', feedback: binary() } },
    [
      'feedback.kind',
      'feedback.name',
      'feedback.version',
      'feedback.settings.maxTests',
      'feedback.settings.maxChars',
      'feedback.settings.text',
    ],
  ],
  [
    'feedback version',
    { mode: { name: 'verifier', feedback: { ...verifierFeedback(), version: '3' } } },
    ['feedback.version'],
  ],
  ['history name', { history: lastHistory }, ['history.name']],
  ['actor params', { actor: actor({ temperature: 0.2 }) }, ['actor.params.temperature']],
  ['actor param added', { actor: actor({ temperature: 0.7, top_p: 0.9 }) }, ['actor.params.top_p']],
  ['actor model', { actor: actor(undefined, 'm-2') }, ['actor.model']],
  ["a task's tests", { tasks: [{ ...TASKS[0]!, tests: 'assert f() == 2' }, TASKS[1]!] }, ['benchmark.contentHash']],
  ["a task's expected answer", { tasks: [{ ...TASKS[0]!, expected: '42' }, TASKS[1]!] }, ['benchmark.contentHash']],
  ["a task's setup", { tasks: [{ ...TASKS[0]!, setup: 'import os' }, TASKS[1]!] }, ['benchmark.contentHash']],
  ["a task's prompt", { tasks: [TASKS[0]!, { ...TASKS[1]!, prompt: 'Write h.' }] }, ['benchmark.contentHash']],
  ['a task more', { tasks: [...TASKS, { id: 'c', prompt: 'p' }] }, ['benchmark.tasks', 'benchmark.contentHash']],
  ['benchmark name', { benchmark: 'other' }, ['benchmark.name']],
  ['verifier settings', { verifier: verifier({ timeoutMs: 100 }) }, ['verifier.settings.timeoutMs']],
  ['verifier version', { verifier: verifier(undefined, '2') }, ['verifier.version']],
  [
    'prompt builder version',
    { promptBuilder: { ...defaultPromptBuilder, version: 'seqk-prompt/2' } },
    ['promptBuilder'],
  ],
  ['budget disclosure', { discloseBudget: true }, ['budgetDisclosed']],
  ['independent sampling', { mode: null }, ['kind', 'feedback', 'history']],
  ['instructions', { instructions: 'Answer in one line.' }, ['instructions']],
  ['an actor descriptor field (an app version)', { actor: versioned('2.1.0') }, ['actor.version']],
]

/** An app-like actor whose descriptor carries a field of its own beyond provider, model and params. */
function versioned(version: string): ChatModel {
  const base = actor()
  return { ...base, descriptor: { ...base.descriptor, version } as ChatModel['descriptor'] }
}

/** Which side of the split each change moves: the instrument or the subject. */
const SIDE: Record<string, 'instrument' | 'subject'> = {
  'actor params': 'subject',
  'actor param added': 'subject',
  'actor model': 'subject',
  'prompt builder version': 'subject',
  instructions: 'subject',
  'an actor descriptor field (an app version)': 'subject',
}

describe('the instrument and the subject', () => {
  it('split the protocol: every field of ProtocolSchema is in exactly one of them', () => {
    const fields = Object.keys(ProtocolSchema.shape).filter((k) => k !== 'schema')
    const both = [...INSTRUMENT_FIELDS, ...SUBJECT_FIELDS]
    expect([...both].sort()).toEqual([...fields].sort())
    expect(new Set(both).size).toBe(both.length)
  })

  it.each(CHANGES)('the %s moves exactly one fingerprint, of its side', (name, change) => {
    const [a, b] = [protocolOf(), protocolOf(change)]
    const side = SIDE[name] ?? 'instrument'
    const moved = {
      instrument: instrumentOf(a, 3).fingerprint !== instrumentOf(b, 3).fingerprint,
      subject: subjectOf(a).fingerprint !== subjectOf(b).fingerprint,
    }
    expect(moved).toEqual({ instrument: side === 'instrument', subject: side === 'subject' })
  })

  it('repeats are the instrument', () => {
    expect(instrumentOf(protocolOf(), 2).fingerprint).not.toBe(instrumentOf(protocolOf(), 3).fingerprint)
    expect(instrumentOf(protocolOf(), 2).repeats).toBe(2)
  })

  it('no instructions leave the protocol as it was: the fingerprints of evals without them do not move', () => {
    expect('instructions' in protocolOf()).toBe(false)
    expect(protocolFingerprint(protocolOf({ instructions: undefined }))).toBe(protocolFingerprint(protocolOf()))
  })

  it("an actor's own descriptor fields survive a round trip through JSON, with the same fingerprints", () => {
    const p = protocolOf({ actor: versioned('2.1.0') })
    const read = ProtocolSchema.parse(JSON.parse(JSON.stringify(p)))
    expect(read.actor.version).toBe('2.1.0')
    expect(protocolFingerprint(read)).toBe(protocolFingerprint(p))
    expect(subjectOf(read).fingerprint).toBe(subjectOf(p).fingerprint)
  })
})

describe('changeText', () => {
  it('prints both values as JSON, and absent for a side without one', () => {
    expect(changeText({ path: 'budget', before: 5, after: 4 })).toBe('budget: 5 → 4')
    expect(changeText({ path: 'instructions', before: undefined, after: 'Be brief.' })).toBe(
      'instructions: absent → "Be brief."',
    )
  })

  it('shows a long string around its first difference', () => {
    const before = `Extract the invoice fields carefully. ${'Return JSON with total, date and vendor. '.repeat(3)}`
    const after = before.replace('carefully', 'exactly')
    const text = changeText({ path: 'instructions', before, after })
    expect(text).toContain('carefully')
    expect(text).toContain('exactly')
    expect(text.length).toBeLessThan(180)
  })

  it('fieldChanges walks objects and is empty for equal values, whatever the key order', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        expect(fieldChanges(value, reverseKeys(value))).toEqual([])
      }),
      { seed: 42 },
    )
    expect(fieldChanges({ a: { b: 1, c: 2 } }, { a: { b: 1, c: 3 } })).toEqual([{ path: 'a.c', before: 2, after: 3 }])
  })
})

describe('protocolFingerprint', () => {
  it('is 16 hex digits, valid, and the same for the same protocol built twice', () => {
    const a = protocolOf()
    expect(ProtocolSchema.parse(a)).toEqual(a)
    expect(protocolFingerprint(a)).toMatch(/^[0-9a-f]{16}$/)
    expect(protocolFingerprint(protocolOf())).toBe(protocolFingerprint(a))
    expect(protocolFingerprint(reverseKeys(a) as Protocol)).toBe(protocolFingerprint(a))
  })

  it('ignores fixture-only task data (simulation, metadata)', () => {
    const stripped = TASKS.map(({ simulation: _s, metadata: _m, ...rest }) => rest)
    expect(protocolFingerprint(protocolOf({ tasks: stripped }))).toBe(protocolFingerprint(protocolOf()))
  })

  it.each(CHANGES)('changes when only the %s changes', (_name, change) => {
    expect(protocolFingerprint(protocolOf(change))).not.toBe(protocolFingerprint(protocolOf()))
  })
})

describe('protocolDifferences', () => {
  it('is empty for equal protocols', () => {
    expect(protocolDifferences(protocolOf(), protocolOf())).toEqual([])
  })

  it.each(CHANGES)('names the dotted paths changed by the %s', (_name, change, paths) => {
    expect(protocolDifferences(protocolOf(), protocolOf(change)).sort()).toEqual([...paths].sort())
  })

  it('is symmetric', () => {
    for (const [, change] of CHANGES) {
      expect(protocolDifferences(protocolOf(change), protocolOf()).sort()).toEqual(
        protocolDifferences(protocolOf(), protocolOf(change)).sort(),
      )
    }
  })
})

describe('benchmarkContentHash', () => {
  it('ignores simulation and metadata', () => {
    const changed = TASKS.map((t) => ({
      ...t,
      metadata: { other: true },
      simulation: { difficulty: 0.9, correct: ['x'], wrong: ['y', 'z'] },
    }))
    expect(benchmarkContentHash(changed)).toBe(benchmarkContentHash(TASKS))
  })

  it('depends on ids, prompts, tests and setup', () => {
    const base = benchmarkContentHash(TASKS)
    expect(benchmarkContentHash([{ ...TASKS[0]!, id: 'z' }, TASKS[1]!])).not.toBe(base)
    expect(benchmarkContentHash([{ ...TASKS[0]!, tests: undefined }, TASKS[1]!])).not.toBe(base)
    expect(benchmarkContentHash([{ ...TASKS[0]!, setup: undefined }, TASKS[1]!])).not.toBe(base)
    expect(
      benchmarkContentHash([
        TASKS[0]!,
        {
          ...TASKS[1]!,
          prompt: [
            { role: 'system', content: 's' },
            { role: 'user', content: 'Write g.' },
          ],
        },
      ]),
    ).not.toBe(base)
    expect(benchmarkContentHash([TASKS[0]!])).not.toBe(base)
  })

  it('benchmarkHashes gives the same hashes as hashing the whole list and each task apart', () => {
    const taskArb = fc.record({
      id: fc.string({ maxLength: 6 }),
      prompt: fc.oneof(
        fc.string({ maxLength: 20 }),
        fc.array(
          fc.record({
            role: fc.constantFrom('system' as const, 'user' as const),
            content: fc.string({ maxLength: 10 }),
          }),
          { minLength: 1, maxLength: 3 },
        ),
      ),
      tests: fc.option(fc.string({ maxLength: 20 }), { nil: undefined }),
      setup: fc.option(fc.string({ maxLength: 20 }), { nil: undefined }),
    })
    fc.assert(
      fc.property(fc.array(taskArb, { maxLength: 6 }), (tasks) => {
        const hashes = benchmarkHashes(tasks)
        // The definition: one canonical JSON of the whole list.
        const whole = sha256(
          canonicalJson(
            tasks.map((t) => ({ id: t.id, prompt: taskMessages(t), tests: t.tests ?? null, setup: t.setup ?? null })),
          ),
        ).slice(0, 16)
        expect(hashes.benchmark).toBe(whole)
        expect(benchmarkContentHash(tasks)).toBe(whole)
        for (const t of tasks) expect(hashes.tasks[t.id]).toBe(taskContentHash(tasks.findLast((u) => u.id === t.id)!))
      }),
      { seed: 42, numRuns: 200 },
    )
  })

  it('treats a string prompt and the same single user message alike (the actor sees the same thing)', () => {
    expect(benchmarkContentHash([{ id: 'a', prompt: 'p' }])).toBe(
      benchmarkContentHash([{ id: 'a', prompt: [{ role: 'user', content: 'p' }] }]),
    )
  })
})
