/**
 * Why a call to a model failed, as far as the fix is concerned. A 401 and a mistyped port both
 * used to end with "raise maxErrorRate to tolerate errors", which is the wrong fix for both: the
 * key or the URL is. Each kind says what to change, and whether tolerating such errors (a cell's
 * `maxErrorRate`) is a fix at all: only for failures that come and go (a server's 5xx, a body
 * that was not the API's).
 */

/** The kinds, in the order a person would check them. */
export const FAILURE_KINDS = [
  'authentication',
  'connection',
  'timeout',
  'quota',
  'rate-limit',
  'request',
  'server',
  'model-output',
  'other',
] as const
export type FailureKind = (typeof FAILURE_KINDS)[number]

/** The fix for each kind, and whether `maxErrorRate` is part of it. */
export const FAILURE_FIXES: Readonly<Record<FailureKind, { label: string; fix: string; tolerable: boolean }>> = {
  authentication: {
    label: 'authentication',
    fix: 'the endpoint refused the credentials: check the API key (apiKey, OPENAI_API_KEY or ANTHROPIC_API_KEY) and that it may use this model',
    tolerable: false,
  },
  connection: {
    label: 'connection',
    fix: 'no connection to the endpoint: check the baseURL (host and port) and that the server is running',
    tolerable: false,
  },
  timeout: {
    label: 'timeout',
    fix: 'the endpoint took the request but sent no complete answer in time: check the server, or raise timeoutMs if the model needs longer',
    tolerable: false,
  },
  quota: {
    label: 'quota',
    fix: "the endpoint's quota is used up or it asked to wait longer than the retry cap: check the account's quota, wait, or raise retry.maxRetryAfterMs",
    tolerable: false,
  },
  'rate-limit': {
    label: 'rate limit',
    fix: 'rate limited until the retries ran out: lower concurrency, or raise retry.maxRetries',
    tolerable: false,
  },
  request: {
    label: 'request refused',
    fix: 'the endpoint refused the request itself (an HTTP 4xx, or the same 5xx answer to it twice while it answered others): check the model name, the decoding options and what the request holds (its prompt, tools and size)',
    tolerable: false,
  },
  server: {
    label: 'server',
    fix: 'the server failed (HTTP 5xx): many such errors mean it is down or overloaded',
    tolerable: true,
  },
  'model-output': {
    label: 'model output',
    fix: "the endpoint answered with something that is not the API's answer (a gateway page, a cut body): check the baseURL",
    tolerable: true,
  },
  // No fix to name beyond the error itself (quoted with it): no filler line, and a crash is not noise to tolerate.
  other: {
    label: 'other',
    fix: '',
    tolerable: false,
  },
}

const TOLERATE =
  "a few such errors are noise: raise maxErrorRate in the cell's expect (modes.<mode>.expect or independent.expect) to tolerate them"

/**
 * The advice for a cell's errored trajectories, from the kinds of their errors (undefined: not a
 * model call's, such as a verifier's crash): the fix of the most common kind, the count of each
 * when there are several, and `maxErrorRate` only when tolerating is a fix (the kind comes and
 * goes) and `measured` (a cell that measured nothing is not helped by tolerating errors). Empty
 * when there is nothing to add to the error itself (one kind, `other`).
 *
 * @example
 * errorAdvice(['authentication', 'authentication'], true) // 'Fix (authentication): the endpoint refused the credentials: …'
 */
export function errorAdvice(kinds: readonly (FailureKind | undefined)[], measured: boolean): string {
  if (kinds.length === 0) return ''
  const counts = new Map<FailureKind, number>()
  for (const kind of kinds) counts.set(kind ?? 'other', (counts.get(kind ?? 'other') ?? 0) + 1)
  const ranked = [...counts].sort((a, b) => b[1] - a[1] || FAILURE_KINDS.indexOf(a[0]) - FAILURE_KINDS.indexOf(b[0]))
  const [top] = ranked[0]!
  const { label, fix, tolerable } = FAILURE_FIXES[top]
  const byKind =
    ranked.length > 1 ? `By kind: ${ranked.map(([kind, n]) => `${n} ${FAILURE_FIXES[kind].label}`).join(', ')}. ` : ''
  if (fix === '') return byKind.trimEnd()
  return `${byKind}Fix (${label}): ${fix}${tolerable && measured ? `; ${TOLERATE}` : ''}.`
}
