/**
 * Injected tool faults, for fault robustness (`actors.agent({ faults })`): a seeded share of an
 * agent's tool calls fail (`error`: the tool is not run, the model reads an error), time out
 * (`timeout`: not run, the model reads that the call timed out) or come back cut short
 * (`truncate`: the tool runs, the model reads the first part of its result with no mark). Which call
 * is hit depends only on the seed, the task, the repeat, the attempt and the call's place in the
 * episode, so a rerun hits the same calls; each hit is recorded on the call (`fault`). The injector
 * is the subject's (the environment its tools run in): `faults.*` join the agent's descriptor, so a
 * faulted agent is a subject of its own, compared with the same agent without faults.
 */
import { TOOL_FAULT_KINDS, type ToolFaultKind } from '../core/episode.js'
import { checkNumberOptions, rejectUnknownOptions } from '../core/option-checks.js'
import { createRng, seedFrom } from '../metrics/random.js'

/** The options of `faults` on `actors.agent()`. */
export interface FaultOptions {
  /** Share of tool calls hit, in (0, 1]. */
  share: number
  /** Which faults, drawn evenly for a call that is hit (default all three). */
  kinds?: readonly ToolFaultKind[]
  /** Seed of the draws (default 1). */
  seed?: number
}

/** The faults as checked: every field filled in. */
export interface FaultSettings {
  share: number
  kinds: readonly ToolFaultKind[]
  seed: number
}

/**
 * Checks `faults`, naming the field and the fix, and fills in the defaults.
 *
 * @example
 * faultSettings('actors.agent', { share: 0.2 }) // => { share: 0.2, kinds: ['error', 'timeout', 'truncate'], seed: 1 }
 */
export function faultSettings(where: string, options: unknown): FaultSettings {
  const at = `${where}: faults`
  if (typeof options !== 'object' || options === null || Array.isArray(options))
    throw new TypeError(`${at} must be { share, kinds?, seed? }, e.g. { share: 0.2, kinds: ['error', 'timeout'] }`)
  rejectUnknownOptions(at, options, ['share', 'kinds', 'seed'])
  const o = options as Partial<FaultOptions>
  if (typeof o.share !== 'number' || !(o.share > 0))
    throw new RangeError(`${at}.share must be a share of tool calls in (0, 1], e.g. 0.2, got ${String(o.share)}`)
  checkNumberOptions(at, o, { share: { min: 0, max: 1, why: 'a share of tool calls' } })
  const kinds = o.kinds ?? TOOL_FAULT_KINDS
  if (!Array.isArray(kinds) || kinds.length === 0 || kinds.some((k) => !TOOL_FAULT_KINDS.includes(k)))
    throw new TypeError(
      `${at}.kinds must list faults among ${TOOL_FAULT_KINDS.map((k) => `'${k}'`).join(', ')}, got ${JSON.stringify(kinds)}`,
    )
  if (new Set(kinds).size !== kinds.length) throw new TypeError(`${at}.kinds lists a fault twice; list each once`)
  if (o.seed !== undefined && !Number.isInteger(o.seed))
    throw new TypeError(`${at}.seed must be an integer, got ${String(o.seed)}`)
  return { share: o.share, kinds: [...kinds], seed: o.seed ?? 1 }
}

/** The faults as the agent's descriptor records them (part of the subject). */
export function faultParams(settings: FaultSettings): Record<string, string | number> {
  return { 'faults.share': settings.share, 'faults.kinds': settings.kinds.join(','), 'faults.seed': settings.seed }
}

/**
 * The fault of one tool call, or undefined: `call` is its 0-based place among the episode's calls run.
 *
 * @example
 * faultOf({ share: 1, kinds: ['timeout'], seed: 1 }, { taskId: 'a', repeat: 0, attempt: 1 }, 0) // => 'timeout'
 */
export function faultOf(
  settings: FaultSettings,
  at: { taskId: string; repeat: number; attempt: number },
  call: number,
): ToolFaultKind | undefined {
  const rng = createRng(seedFrom(settings.seed, 'tool-fault', at.taskId, at.repeat, at.attempt, call))
  if (rng() >= settings.share) return undefined
  return settings.kinds[Math.min(settings.kinds.length - 1, Math.floor(rng() * settings.kinds.length))]
}

/** What the model reads for a call that failed or timed out (the same words as a real one). */
export function faultError(kind: 'error' | 'timeout', toolTimeoutMs: number): string {
  return kind === 'timeout'
    ? `timed out after ${toolTimeoutMs} ms (toolTimeoutMs)`
    : 'the tool failed: the service is temporarily unavailable (503)'
}

/** A truncated result: its first half (at least one character is dropped from a non-empty result). */
export function truncated(result: string): string {
  return result.slice(0, Math.floor(result.length / 2))
}
