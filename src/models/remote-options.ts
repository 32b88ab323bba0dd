/**
 * The remote models' options, checked at declaration: the names each constructor knows, the bounds
 * of their numbers, and the base URL (the checks themselves are core/option-checks.ts, which every
 * component uses).
 */
import { checkNumberOptions, rejectUnknownOptions, type NumberBound } from '../core/option-checks.js'
import { redactText, redactUrl } from './redact.js'

/** The options every remote model shares (RemoteOptions). */
export const REMOTE_OPTIONS = [
  'id',
  'timeoutMs',
  'callTimeoutMs',
  'retry',
  'concurrency',
  'prices',
  'stream',
  'cassette',
  'headers',
  'maxResponseBytes',
  'maxAnswerChars',
] as const
/** The keys of BatchOptions (the OpenAI and Anthropic models' `batch`). */
export const BATCH_OPTIONS = ['pollMs', 'gatherMs', 'maxBatch', 'deadlineMs', 'resubmit', 'maxResultsBytes'] as const
/** The keys of RetryOptions. */
export const RETRY_OPTIONS = ['maxRetries', 'baseDelayMs', 'maxDelayMs', 'maxRetryAfterMs'] as const

/**
 * The bounds of the remote models' numeric options (documented in the README's option table).
 * Beyond them a value is a mistake (a timeout in seconds given as ms × 1000, a retry count that
 * would spend an hour on one call), not a setting.
 */
export const REMOTE_BOUNDS: Readonly<Record<string, NumberBound>> = {
  timeoutMs: { min: 1, max: 3_600_000, why: 'one hour per try; the cell has its own timeout' },
  callTimeoutMs: { min: 1, max: 86_400_000, why: 'a day for one call, every try and wait included' },
  maxResponseBytes: {
    min: 1024,
    max: 1024 ** 3,
    integer: true,
    why: 'from 1 kB to 1 GiB held in memory for one response',
  },
  maxAnswerChars: { min: 1, max: 100_000_000, integer: true, why: 'a hundred million characters kept of one answer' },
  concurrency: { min: 1, max: 1000, integer: true, why: "more calls at once than any provider's rate limit allows" },
  temperature: { min: 0, max: 2, why: 'the providers accept 0 to 2 (Anthropic 0 to 1)' },
  maxTokens: { min: 1, max: 1_000_000, integer: true, why: 'no model answers more' },
  seed: { min: -(2 ** 53 - 1), max: 2 ** 53 - 1, integer: true, why: 'a safe integer' },
}

/** The bounds of `retry`'s options. */
export const RETRY_BOUNDS: Readonly<Record<string, NumberBound>> = {
  maxRetries: { min: 0, max: 20, integer: true, why: 'twenty failed tries are an outage, not noise' },
  baseDelayMs: { min: 0, max: 60_000, why: 'a minute before the first retry' },
  maxDelayMs: { min: 0, max: 600_000, why: 'ten minutes between tries' },
  maxRetryAfterMs: { min: 0, max: 3_600_000, why: "an hour of a server's retry-after" },
}

/** The bounds of `batch`'s options; `maxBatch`'s upper bound is the provider's. */
export const BATCH_BOUNDS: Readonly<Record<string, NumberBound>> = {
  pollMs: { min: 1, max: 3_600_000, why: 'a poll at least every hour; the providers suggest minutes' },
  gatherMs: { min: 0, max: 600_000, why: 'calls gathered for ten minutes at most' },
  deadlineMs: { min: 1, max: 86_400_000, why: "the providers' 24-hour window" },
  resubmit: { min: 0, max: 10, integer: true, why: 'ten expired batches are an outage' },
  maxResultsBytes: {
    min: 1024,
    max: 16 * 1024 ** 3,
    integer: true,
    why: 'from 1 kB to 16 GiB of results, read line by line',
  },
}

/** How the remote constructors check their options besides unknown names and number bounds. */
export interface RemoteCheck {
  /** Option names besides the shared ones (REMOTE_OPTIONS). */
  known: readonly string[]
  bounds: Readonly<Record<string, NumberBound>>
  /** A string option's allowed values. */
  choices?: Readonly<Record<string, readonly string[]>>
  /** The largest batch the provider takes; undefined: the model has no `batch`. */
  maxBatch?: number
  baseURL: 'required' | 'optional'
}

/**
 * Every check of a remote model's options at declaration, each error naming the option and the
 * fix: unknown names, number bounds (its `retry` and `batch` too), string choices (`api:
 * 'chatt'` used to be stored in the protocol), the key's and the headers' types, and the base URL
 * (an http(s) URL without credentials; it is quoted redacted).
 *
 * @example
 * checkRemoteOptions('actors.openai({ model: "gpt-x" })', options, { known: ['model', 'api'], bounds: REMOTE_BOUNDS, choices: { api: ['chat', 'responses'] }, baseURL: 'optional' })
 */
export function checkRemoteOptions(where: string, options: object, check: RemoteCheck): void {
  const o = options as Record<string, unknown>
  rejectUnknownOptions(where, options, [...REMOTE_OPTIONS, ...check.known])
  if (isObject(o.retry)) rejectUnknownOptions(`${where}, retry`, o.retry, RETRY_OPTIONS)
  if (isObject(o.batch)) rejectUnknownOptions(`${where}, batch`, o.batch, BATCH_OPTIONS)
  checkNumberOptions(where, options, check.bounds)
  if (isObject(o.retry)) checkNumberOptions(`${where}, retry`, o.retry, RETRY_BOUNDS)
  if (isObject(o.batch) && check.maxBatch !== undefined) {
    checkNumberOptions(`${where}, batch`, o.batch, {
      ...BATCH_BOUNDS,
      maxBatch: {
        min: 1,
        max: check.maxBatch,
        integer: true,
        why: `the provider takes at most ${check.maxBatch} requests in one batch`,
      },
    })
  }
  for (const [name, allowed] of Object.entries(check.choices ?? {})) {
    if (o[name] !== undefined && !allowed.includes(o[name] as string))
      throw new TypeError(
        `${where}: ${name} must be ${allowed.map((a) => `'${a}'`).join(' or ')}, got ${shownValue(o[name])}`,
      )
  }
  if (o.apiKey !== undefined && (typeof o.apiKey !== 'string' || o.apiKey === ''))
    throw new TypeError(
      `${where}: apiKey must be a non-empty string (the key itself), got ${typeof o.apiKey === 'string' ? 'an empty string' : `a ${typeof o.apiKey}`}`,
    )
  if (
    o.headers !== undefined &&
    (!isObject(o.headers) || Object.values(o.headers).some((v) => typeof v !== 'string'))
  ) {
    throw new TypeError(
      `${where}: headers must be an object of header names to string values, e.g. { 'x-api-key': process.env.GATEWAY_KEY }`,
    )
  }
  if (o.baseURL !== undefined || check.baseURL === 'required')
    checkBaseURL(where, o.baseURL, check.baseURL === 'required')
}

/**
 * The base URL: an http(s) URL without user info (fetch refuses those, and they would be written
 * wherever the URL is). `name`: where it came from (the option, or `OPENAI_BASE_URL`).
 */
export function checkBaseURL(where: string, baseURL: unknown, required: boolean, name = 'baseURL'): void {
  const example = "e.g. 'http://localhost:11434/v1' (Ollama) or 'http://localhost:8000/v1' (vLLM)"
  if (typeof baseURL !== 'string') {
    throw new TypeError(
      `${where}: ${name} ${required ? 'is required and ' : ''}must be the server's http(s) URL as a string, ${example}${baseURL === undefined ? '' : ` (got a ${typeof baseURL})`}`,
    )
  }
  let url: URL | undefined
  try {
    url = new URL(baseURL)
  } catch {
    url = undefined
  }
  const shown = JSON.stringify(redactText(baseURL))
  if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:'))
    throw new TypeError(`${where}: ${name} must be the server's http(s) URL, ${example} (got ${shown})`)
  if (url.username !== '' || url.password !== '') {
    throw new TypeError(
      `${where}: ${name} must not carry credentials (user:pass@): fetch refuses such URLs, and the URL is written to artifacts. Pass the key as apiKey (sent as authorization: Bearer), or send it in a header: headers: { authorization: 'Basic …' } (got ${JSON.stringify(redactUrl(baseURL))})`,
    )
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

function shownValue(value: unknown): string {
  return typeof value === 'string' ? JSON.stringify(redactText(value)) : String(value)
}
