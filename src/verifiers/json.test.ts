import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { renderDiagnostics } from '../feedback/verifier-feedback.js'
import { json } from './json.js'
import { checkVerdict, type Verdict, type Verifier } from './verifier.js'

const task = { id: 'j/1', prompt: 'Reply with JSON {"total": number}.' }
const verify = (v: Verifier, answer: string) => v.verify(task, answer) as Verdict | Promise<Verdict>

const TOTAL = {
  type: 'object',
  properties: { total: { type: 'number' }, tags: { type: 'array', items: { type: 'string' } } },
  required: ['total'],
  additionalProperties: false,
}

describe('verifiers.json', () => {
  it('passes valid JSON, and says where a parse failed (line and column)', async () => {
    const v = json()
    expect(await verify(v, ' {"total": 9}\n')).toEqual({
      pass: true,
      score: 1,
      extracted: '{"total": 9}',
      diagnostics: { outcome: 'passed', summary: 'the answer is valid JSON' },
    })
    const broken = await verify(v, '{\n  "total": 9,\n}')
    expect(broken).toMatchObject({
      pass: false,
      diagnostics: {
        outcome: 'failed',
        summary: expect.stringMatching(/^the answer is not valid JSON: .* \(line 3, column 1\)$/),
      },
    })
    expect(renderDiagnostics(broken.diagnostics, undefined)).toBe(broken.diagnostics.summary)
    expect((await verify(v, 'The total is 9.')).diagnostics.summary).toMatch(/^the answer is not valid JSON: /)
    expect((await verify(v, '')).diagnostics).toEqual({ outcome: 'no-answer', summary: 'the answer is empty' })
  })

  it('reads the JSON from one code fence, unless fenced: false; several fences fail, saying so', async () => {
    const fencedAnswer = 'Here it is:\n```json\n{"total": 9}\n```\n'
    expect(await verify(json(), fencedAnswer)).toMatchObject({ pass: true, extracted: '{"total": 9}' })
    expect((await verify(json({ fenced: false }), fencedAnswer)).diagnostics.summary).toMatch(
      /not valid JSON: .*\(write the JSON alone, without a code fence\)$/,
    )
    expect((await verify(json(), '```\n1\n```\nor\n```\n2\n```')).diagnostics.summary).toBe(
      'the answer holds 2 code blocks; reply with one JSON value (alone, or in one code block)',
    )
    expect((await verify(json(), '```json\n{"total": }\n```')).diagnostics.summary).toMatch(
      /^the JSON in the code block is not valid JSON: /,
    )
  })

  it('checks a JSON Schema with Ajv: every problem at its path, the first five and a count', async () => {
    const v = json({ schema: TOTAL })
    expect(await verify(v, '{"total": 9, "tags": ["a"]}')).toMatchObject({
      pass: true,
      diagnostics: { summary: 'the JSON matches the schema' },
    })
    const wrong = await verify(v, '{"total": "9", "tags": ["a", 2], "note": "x"}')
    expect(wrong.diagnostics.summary).toBe(
      'the JSON does not match the schema: at $: must NOT have additional properties ("note"); at $.total: must be number; at $.tags[1]: must be string',
    )
    const many = await verify(
      json({ schema: { type: 'array', items: { type: 'integer' } } }),
      '["a", "b", "c", "d", "e", "f", "g"]',
    )
    expect(many.diagnostics.summary).toMatch(/at \$\[4\]: must be integer; and 2 more$/)
    // Formats are checked, not ignored.
    expect(
      (await verify(json({ schema: { type: 'string', format: 'email' } }), '"not an email"')).diagnostics.summary,
    ).toBe('the JSON does not match the schema: at $: must match format "email"')
    // A draft-07 schema is read as draft-07.
    expect(
      (
        await verify(
          json({
            schema: { $schema: 'http://json-schema.org/draft-07/schema#', type: 'array', items: [{ type: 'string' }] },
          }),
          '[1]',
        )
      ).pass,
    ).toBe(false)
  })

  it('refuses a broken JSON Schema at declaration, naming the problem', () => {
    expect(() => json({ schema: { type: 'object', propertiez: {} } })).toThrow(
      'verifiers.json(): schema is not a valid JSON Schema: strict mode: unknown keyword: "propertiez"',
    )
    expect(() => json({ schema: { type: 'object', properties: 5 } })).toThrow(
      /schema is not a valid JSON Schema: schema is invalid: data\/properties must be object/,
    )
    expect(() => json({ schema: { $schema: 'http://json-schema.org/draft-04/schema#' } })).toThrow(
      /is a draft this verifier does not read; use draft 2020-12/,
    )
    expect(() => json({ schema: 'object' as never })).toThrow(
      'verifiers.json(): schema must be a JSON Schema (an object) or a zod schema, got "object"',
    )
    expect(() => json({ shema: {} } as never)).toThrow('unknown option "shema" (did you mean "schema"?)')
    expect(() => json({ version: '' })).toThrow(/version must be a non-empty string/)
  })

  it('checks a zod schema, async refinements included, with each issue at its path', async () => {
    const v = json({ schema: z.object({ total: z.number().int(), items: z.array(z.object({ name: z.string() })) }) })
    expect((await verify(v, '{"total": 9, "items": [{"name": "a"}]}')).pass).toBe(true)
    expect((await verify(v, '{"total": 9.5, "items": [{"name": 1}]}')).diagnostics.summary).toBe(
      'the JSON does not match the schema: at $.total: Invalid input: expected int, received number; at $.items[0].name: Invalid input: expected string, received number',
    )
    const slow = json({ schema: z.string().refine(async (s) => s.startsWith('ok'), 'must start with "ok"') })
    const pending = verify(slow, '"nope"')
    expect(pending).toBeInstanceOf(Promise)
    expect((await pending).diagnostics.summary).toBe('the JSON does not match the schema: at $: must start with "ok"')
  })

  it('hostile: JSON nested 100 000 levels deep against a recursive schema fails, it does not break the run', async () => {
    const deep = `${'['.repeat(100_000)}${']'.repeat(100_000)}`
    expect((await verify(json(), deep)).pass).toBe(true)
    const Nested: z.ZodType = z.lazy(() => z.array(Nested))
    for (const schema of [{ type: 'array', items: { $ref: '#' } }, Nested]) {
      expect(await verify(json({ schema }), deep)).toMatchObject({
        pass: false,
        diagnostics: {
          outcome: 'failed',
          summary:
            'the JSON does not match the schema: at $: the JSON is nested too deeply to check against the schema',
        },
      })
    }
  })

  it('fingerprints the schema: another schema, another hash; a zod schema as its JSON Schema', () => {
    const a = json({ schema: TOTAL }).settings
    expect(a).toMatchObject({
      schema: 'json-schema',
      schemaHash: expect.stringMatching(/^[0-9a-f]{16}$/),
      schemaVersion: '1',
      fenced: true,
    })
    expect(json({ schema: { ...TOTAL, required: [] } }).settings.schemaHash).not.toBe(a.schemaHash)
    expect(json({ schema: structuredClone(TOTAL) }).settings.schemaHash).toBe(a.schemaHash)
    const zodHash = (schema: z.ZodType) => json({ schema }).settings.schemaHash
    expect(zodHash(z.object({ total: z.number() }))).toBe(zodHash(z.object({ total: z.number() })))
    expect(zodHash(z.object({ total: z.number() }))).not.toBe(zodHash(z.object({ total: z.string() })))
    expect(json().settings).toMatchObject({ schema: 'none', schemaHash: null })
  })

  it('passes every JSON value as written, alone or fenced, and its verdicts meet the contract (seeded property)', async () => {
    await fc.assert(
      fc.asyncProperty(fc.jsonValue(), fc.boolean(), fc.string({ maxLength: 6 }), async (value, fence, noise) => {
        const text = JSON.stringify(value, null, fence ? 2 : undefined)
        const v = json()
        const verdict = await verify(v, fence ? `\`\`\`json\n${text}\n\`\`\`` : text)
        expect(verdict.pass).toBe(true)
        expect(checkVerdict(v, verdict)).toEqual(verdict)
        const other = await verify(v, `${noise}${text}`)
        expect(checkVerdict(v, other)).toEqual(other)
      }),
      { seed: 20261201, numRuns: 400 },
    )
  })
})
