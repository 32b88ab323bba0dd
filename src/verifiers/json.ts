/**
 * The `json` verifier: the answer is valid JSON, and optionally matches a JSON Schema (checked by
 * Ajv, the reference validator, with the standard formats) or a zod schema (any Standard Schema).
 */
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv'
import { Ajv2019 } from 'ajv/dist/2019.js'
import { Ajv2020 } from 'ajv/dist/2020.js'
import addFormatsModule from 'ajv-formats'
import { z } from 'zod'
import { canonicalJson, sha256 } from '../core/fingerprint.js'
import { shown } from '../core/component-error.js'
import { rejectUnknownOptions } from '../core/option-checks.js'
import { booleanOption, emptyAnswer } from './reference.js'
import type { Verdict, Verifier } from './verifier.js'

/** A schema in the Standard Schema form (zod 3.24+, zod 4, valibot, arktype): only `validate` is used. */
export interface StandardSchema {
  readonly '~standard': {
    readonly version: 1
    readonly validate: (value: unknown) => StandardResult | Promise<StandardResult>
  }
}
type StandardPath = readonly (PropertyKey | { readonly key: PropertyKey })[]
type StandardResult =
  | { readonly value: unknown; readonly issues?: undefined }
  | { readonly issues: readonly { readonly message: string; readonly path?: StandardPath }[] }

/** The options of `verifiers.json()`. */
export interface JsonOptions {
  /**
   * What the JSON must match: a JSON Schema (an object; draft 2020-12 unless its `$schema` names
   * draft-07 or 2019-09), or a zod schema (any Standard Schema). Without it, any valid JSON passes.
   */
  schema?: Record<string, unknown> | boolean | StandardSchema
  /**
   * The schema's version, recorded in the fingerprint (default `'1'`). A JSON Schema is hashed
   * into the fingerprint as it is; a zod schema as its JSON Schema, which cannot show refinements
   * or transforms: bump this when they change what passes.
   */
  version?: string
  /** Also accept an answer whose JSON is in one Markdown code fence (```json … ```). Default true. */
  fenced?: boolean
}

const OPTIONS = ['schema', 'version', 'fenced'] as const
const WHERE = 'verifiers.json()'
/** A failed verdict lists this many schema problems, then counts the rest. */
const MAX_ISSUES = 5
const FENCE = /```[ \t]*(?:json|JSON)?[ \t]*\r?\n([\s\S]*?)\r?\n?[ \t]*```/g

// ajv-formats is CommonJS: under NodeNext its default import is the module object.
const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as (
  ajv: Ajv,
) => Ajv
const validators = new Map<string, Ajv>()
/** One Ajv per draft, with every error and the standard formats. */
function ajvFor(draft: '2020-12' | '2019-09' | 'draft-07'): Ajv {
  let ajv = validators.get(draft)
  if (ajv === undefined) {
    // Strict about keywords and formats (a typo is a mistake); not about style (tuples, required names, types).
    const options = { allErrors: true, strict: true, strictRequired: false, strictTypes: false, strictTuples: false }
    ajv = addFormats(
      draft === '2020-12' ? new Ajv2020(options) : draft === '2019-09' ? new Ajv2019(options) : new Ajv(options),
    )
    validators.set(draft, ajv)
  }
  return ajv
}

function draftOf(schema: Record<string, unknown> | boolean): '2020-12' | '2019-09' | 'draft-07' {
  const declared = typeof schema === 'object' ? schema.$schema : undefined
  if (declared === undefined || (typeof declared === 'string' && declared.includes('2020-12'))) return '2020-12'
  if (typeof declared === 'string' && declared.includes('2019-09')) return '2019-09'
  if (typeof declared === 'string' && /draft-0[67]/.test(declared)) return 'draft-07'
  throw new TypeError(
    `${WHERE}: schema.$schema ${shown(declared)} is a draft this verifier does not read; use draft 2020-12 (no $schema), 2019-09 or draft-07`,
  )
}

const isStandard = (value: unknown): value is StandardSchema =>
  typeof value === 'object' &&
  value !== null &&
  typeof (value as Partial<StandardSchema>)['~standard']?.validate === 'function'

/** A path as the feedback shows it: `$.items[2].name`. */
function pathText(path: StandardPath): string {
  return `$${path
    .map((part) => (typeof part === 'object' ? part.key : part))
    .map((key) => (typeof key === 'number' ? `[${key}]` : `.${String(key)}`))
    .join('')}`
}

const ajvIssue = (e: ErrorObject): string => {
  const at = `$${e.instancePath
    .split('/')
    .slice(1)
    .map((p) => (/^\d+$/.test(p) ? `[${p}]` : `.${p.replace(/~1/g, '/').replace(/~0/g, '~')}`))
    .join('')}`
  const extra =
    e.keyword === 'additionalProperties'
      ? ` (${JSON.stringify((e.params as { additionalProperty?: string }).additionalProperty)})`
      : ''
  return `at ${at}: ${e.message ?? e.keyword}${extra}`
}

/** A validator returning the problems of a value, from a JSON Schema or a Standard Schema. */
type Check = (value: unknown) => string[] | Promise<string[]>

function checkOf(schema: JsonOptions['schema']): { check?: Check; kind: string; hash: string | null } {
  if (schema === undefined) return { kind: 'none', hash: null }
  if (isStandard(schema)) {
    let hash: string | null = null
    try {
      hash = sha256(canonicalJson(z.toJSONSchema(schema as unknown as z.ZodType, { unrepresentable: 'any' }))).slice(
        0,
        16,
      )
    } catch {
      // Not a zod 4 schema (or not representable): the version alone stands for it.
    }
    const issues = (result: StandardResult) =>
      (result.issues ?? []).map((i) => `at ${pathText(i.path ?? [])}: ${i.message}`)
    const check: Check = guarded((value) => {
      const result = schema['~standard'].validate(value)
      return result instanceof Promise ? result.then(issues) : issues(result)
    })
    return { check, kind: 'standard', hash }
  }
  if (typeof schema !== 'boolean' && (typeof schema !== 'object' || schema === null || Array.isArray(schema))) {
    throw new TypeError(`${WHERE}: schema must be a JSON Schema (an object) or a zod schema, got ${shown(schema)}`)
  }
  let validate: ValidateFunction
  try {
    validate = ajvFor(draftOf(schema)).compile(schema)
  } catch (error) {
    if (error instanceof TypeError && error.message.startsWith(WHERE)) throw error
    throw new TypeError(`${WHERE}: schema is not a valid JSON Schema: ${(error as Error).message}`)
  }
  return {
    check: guarded((value) => (validate(value) ? [] : (validate.errors ?? []).map(ajvIssue))),
    kind: 'json-schema',
    hash: sha256(canonicalJson(schema)).slice(0, 16),
  }
}

/**
 * A check that turns a stack overflow into a problem: an answer nested thousands of levels deep
 * makes a recursive schema's validator run out of stack, and that is a failed answer, not a
 * broken run.
 */
function guarded(check: Check): Check {
  const tooDeep = (error: unknown): string[] => {
    if (error instanceof RangeError) return ['at $: the JSON is nested too deeply to check against the schema']
    throw error
  }
  return (value) => {
    try {
      const problems = check(value)
      return problems instanceof Promise ? problems.catch(tooDeep) : problems
    } catch (error) {
      return tooDeep(error)
    }
  }
}

/** Line and column (1-based) of a character offset, for a parse error a reader can find. */
function lineColumn(text: string, offset: number): string {
  const before = text.slice(0, offset).split('\n')
  return `line ${before.length}, column ${before.at(-1)!.length + 1}`
}

/** The JSON text of an answer: the whole answer, or the one fenced block in it. */
function jsonText(answer: string, fenced: boolean): { text: string; fence: boolean } | { fences: number } {
  const trimmed = answer.trim()
  if (!fenced || /^[[{"\d-]|^(true|false|null)\b/.test(trimmed)) return { text: trimmed, fence: false }
  const blocks = [...trimmed.matchAll(FENCE)]
  return blocks.length === 1
    ? { text: blocks[0]![1]!.trim(), fence: true }
    : blocks.length === 0
      ? { text: trimmed, fence: false }
      : { fences: blocks.length }
}

function parsed(text: string): { value: unknown } | { error: string } {
  try {
    return { value: JSON.parse(text) as unknown }
  } catch (error) {
    const message = (error as Error).message
    const at = /at position (\d+)/.exec(message)
    return { error: at && !/line \d/.test(message) ? `${message} (${lineColumn(text, Number(at[1]))})` : message }
  }
}

/**
 * The JSON value of an answer as this verifier reads it (the whole answer, or the one ```json
 * fence in it unless `fenced` is false), or what is wrong: `'empty'`, or a sentence such as
 * `the answer is not valid JSON: Unexpected token … (line 1, column 3)`. Shared with the
 * short-answer verifiers' `path` option and `numeric`'s check for JSON answers.
 *
 * @example
 * jsonAnswer('```json\n{"total": 12}\n```', true) // { value: { total: 12 }, text: '{"total": 12}' }
 */
export function jsonAnswer(answer: string, fenced: boolean): { value: unknown; text: string } | { problem: string } {
  if (answer.trim() === '') return { problem: 'empty' }
  const read = jsonText(answer, fenced)
  if (!('text' in read)) return { problem: `the answer holds ${read.fences} code blocks, not one JSON value` }
  const result = parsed(read.text)
  if ('error' in result)
    return { problem: `${read.fence ? 'the JSON in the code block' : 'the answer'} is not valid JSON: ${result.error}` }
  return { value: result.value, text: read.text }
}

/**
 * A verifier that passes an answer that is valid JSON and, with `schema`, matches it. A failed
 * verdict says what to fix: the parse error with its line and column, or each schema problem at its
 * path (`at $.total: must be number`), the first five and a count of the rest. An answer in one
 * ```json fence is read from inside it (`fenced: false` refuses it); the JSON read is the verdict's
 * `extracted` value.
 *
 * A JSON Schema is compiled once with Ajv in strict mode, so an unknown keyword or format fails at
 * declaration, naming it. The schema's hash and `version` are its settings (the fingerprint).
 *
 * @example
 * seqEval('extraction', { tasks, verifier: verifiers.json({ schema: { type: 'object', required: ['total'], properties: { total: { type: 'number' } } } }), ... })
 * seqEval('extraction', { tasks, verifier: verifiers.json({ schema: z.object({ total: z.number() }) }), ... })
 */
export function json(options: JsonOptions = {}): Verifier {
  rejectUnknownOptions(WHERE, options, OPTIONS)
  const version = options.version ?? '1'
  if (typeof version !== 'string' || version === '' || version.length > 100) {
    throw new TypeError(`${WHERE}: version must be a non-empty string of at most 100 characters, got ${shown(version)}`)
  }
  const fenced = booleanOption(WHERE, 'fenced', options.fenced, true)
  const { check, kind, hash } = checkOf(options.schema)
  const judged = (text: string, problems: string[]): Verdict => {
    if (problems.length === 0) {
      const summary = check ? 'the JSON matches the schema' : 'the answer is valid JSON'
      return { pass: true, score: 1, extracted: text, diagnostics: { outcome: 'passed', summary } }
    }
    const shownProblems = problems.slice(0, MAX_ISSUES).join('; ')
    const more = problems.length > MAX_ISSUES ? `; and ${problems.length - MAX_ISSUES} more` : ''
    return {
      pass: false,
      score: 0,
      extracted: text,
      diagnostics: { outcome: 'failed', summary: `the JSON does not match the schema: ${shownProblems}${more}` },
    }
  }
  return {
    name: 'json',
    version: '1',
    settings: { schema: kind, schemaHash: hash, schemaVersion: version, fenced },
    normalise: (answer) => {
      const read = jsonText(answer, fenced)
      return 'text' in read ? read.text : answer.trim()
    },
    verify(_task, answer): Verdict | Promise<Verdict> {
      if (answer.trim() === '') return emptyAnswer()
      const read = jsonText(answer, fenced)
      if (!('text' in read)) {
        const summary = `the answer holds ${read.fences} code blocks; reply with one JSON value (alone, or in one code block)`
        return { pass: false, score: 0, diagnostics: { outcome: 'failed', summary } }
      }
      const result = parsed(read.text)
      if ('error' in result) {
        const where = read.fence ? 'the JSON in the code block' : 'the answer'
        const hint = !fenced && /```/.test(answer) ? ' (write the JSON alone, without a code fence)' : ''
        return {
          pass: false,
          score: 0,
          extracted: read.text,
          diagnostics: { outcome: 'failed', summary: `${where} is not valid JSON: ${result.error}${hint}` },
        }
      }
      if (!check) return judged(read.text, [])
      const problems = check(result.value)
      return problems instanceof Promise ? problems.then((p) => judged(read.text, p)) : judged(read.text, problems)
    },
  }
}
