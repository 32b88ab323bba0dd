import { z } from 'zod'
import type { ChatModel } from './chat-model.js'
import { anthropicModel } from './providers/anthropic.js'
import { openaiCompatibleModel, openaiModel } from './providers/openai.js'
import type { RemoteOptions } from './providers/remote.js'
import { redactName, refuseKeyAsModel, registerSecret } from './redact.js'
import { isCi, isSimulation, SIMULATED_SPEC, SimulationInCiError } from './simulation-policy.js'
import { type NumberBound } from '../core/option-checks.js'
import { REMOTE_BOUNDS, RETRY_BOUNDS } from './remote-options.js'

const PROVIDERS = ['openai', 'openai-responses', 'anthropic', 'compat']
const SPEC_FORMS = 'openai:<model>, openai-responses:<model>, anthropic:<model> or compat:<model>@<base URL>'

/** A whole number within a bound, read from an environment variable: its error names the variable and the range. */
function envInteger(variable: string, bound: NumberBound) {
  return z
    .string()
    .trim()
    .regex(/^\d+$/, `${variable} must be a whole number of ${variable.endsWith('_MS') ? 'milliseconds' : 'tries'}`)
    .transform(Number)
    .refine(
      (n) => n >= bound.min && n <= bound.max,
      `${variable} must be from ${bound.min} to ${bound.max} (${bound.why})`,
    )
    .optional()
}

/**
 * What the environment sets for every `SEQK_ACTORS` actor besides the spec: decoding, a compat
 * server's key, per-try and per-call time limits, retries. Checked with zod, each error naming the
 * variable, the range and why; a key is never quoted.
 */
const SpecEnvSchema = z.object({
  SEQK_TEMPERATURE: z
    .string()
    .trim()
    .refine((s) => s !== '' && Number.isFinite(Number(s)), 'SEQK_TEMPERATURE must be a number')
    .transform(Number)
    .optional(),
  SEQK_MAX_TOKENS: z
    .string()
    .trim()
    .refine((s) => /^\d+$/.test(s) && Number(s) > 0, 'SEQK_MAX_TOKENS must be a positive integer')
    .transform(Number)
    .optional(),
  SEQK_COMPAT_API_KEY: z
    .string()
    .trim()
    .min(1, 'SEQK_COMPAT_API_KEY is set but empty: unset it or give the key')
    .optional(),
  SEQK_TIMEOUT_MS: envInteger('SEQK_TIMEOUT_MS', REMOTE_BOUNDS.timeoutMs!),
  SEQK_CALL_TIMEOUT_MS: envInteger('SEQK_CALL_TIMEOUT_MS', REMOTE_BOUNDS.callTimeoutMs!),
  SEQK_MAX_RETRIES: envInteger('SEQK_MAX_RETRIES', RETRY_BOUNDS.maxRetries!),
})

/** The spec settings the environment gives, or an Error naming each bad variable (its value only when it is not a key). */
function specEnv(env: NodeJS.ProcessEnv): z.infer<typeof SpecEnvSchema> {
  const read = Object.fromEntries(Object.keys(SpecEnvSchema.shape).map((k) => [k, env[k] === '' ? undefined : env[k]]))
  const parsed = SpecEnvSchema.safeParse(read)
  if (parsed.success) return parsed.data
  const problems = parsed.error.issues.map((issue) => {
    const variable = String(issue.path[0])
    // A key is never echoed; the other values are numbers a person typed.
    const got = variable.endsWith('_KEY') ? '' : ` (got ${JSON.stringify(env[variable])})`
    return `${issue.message}${got}`
  })
  throw new Error(problems.join('; '))
}

/**
 * One actor from its spec: `openai:<model>`, `openai-responses:<model>`, `anthropic:<model>` or
 * `compat:<model>@<base URL>` (model names may contain `:`, as Ollama tags do). The environment
 * sets the rest for every spec: `SEQK_TEMPERATURE` and `SEQK_MAX_TOKENS` (decoding, part of the
 * protocol), `SEQK_TIMEOUT_MS` (one try), `SEQK_CALL_TIMEOUT_MS` (a whole call),
 * `SEQK_MAX_RETRIES`, and `SEQK_COMPAT_API_KEY`, the key a compat server requires (vLLM
 * `--api-key`, a LiteLLM proxy, OpenRouter), sent as `Authorization: Bearer`, registered for
 * redaction and never quoted in an error. OpenAI's and Anthropic's keys are their own variables
 * (`OPENAI_API_KEY`, `ANTHROPIC_API_KEY`); a compat spec never sends those to a third party.
 *
 * @example
 * actorFromSpec('compat:qwen2.5-coder:7b@http://localhost:11434/v1')
 * actorFromSpec('compat:meta-llama/llama-3.1-8b-instruct@https://openrouter.ai/api/v1', { SEQK_COMPAT_API_KEY: key })
 */
export function actorFromSpec(spec: string, env: NodeJS.ProcessEnv = process.env): ChatModel {
  const settings = specEnv(env)
  registerSecret(settings.SEQK_COMPAT_API_KEY)
  const temperature = settings.SEQK_TEMPERATURE
  const maxTokens = settings.SEQK_MAX_TOKENS
  const limits: Pick<RemoteOptions, 'timeoutMs' | 'callTimeoutMs' | 'retry'> = {
    ...(settings.SEQK_TIMEOUT_MS !== undefined ? { timeoutMs: settings.SEQK_TIMEOUT_MS } : {}),
    ...(settings.SEQK_CALL_TIMEOUT_MS !== undefined ? { callTimeoutMs: settings.SEQK_CALL_TIMEOUT_MS } : {}),
    ...(settings.SEQK_MAX_RETRIES !== undefined ? { retry: { maxRetries: settings.SEQK_MAX_RETRIES } } : {}),
  }
  const colon = spec.indexOf(':')
  const kind = spec.slice(0, colon)
  const rest = spec.slice(colon + 1)
  // A spec may carry a credential (a URL's password, a key pasted by mistake): errors quote it redacted.
  const quoted = JSON.stringify(redactName(spec))
  if (spec.trim() === SIMULATED_SPEC)
    throw new Error(
      `actor spec ${quoted} stands for each eval file's own simulated actors (the fallback of actorsFromEnv); give it in SEQK_ACTORS, not to actorFromSpec`,
    )
  if (colon < 0 || !rest) throw new Error(`actor spec ${quoted}: expected ${SPEC_FORMS}`)
  // A key where the model goes would name the actor in every output (an unknown provider is refused below, unquoted).
  if (PROVIDERS.includes(kind)) refuseKeyAsModel(`actor spec "${kind}:…"`, rest.replace(/@https?:\/\/.*$/is, ''))
  switch (kind) {
    case 'openai':
      return openaiModel({ model: rest, temperature, maxTokens, ...limits })
    case 'openai-responses':
      return openaiModel({
        model: rest,
        api: 'responses',
        temperature,
        maxTokens,
        id: `openai-responses:${rest}`,
        ...limits,
      })
    case 'anthropic':
      return anthropicModel({ model: rest, temperature, maxTokens, ...limits })
    case 'compat': {
      // At the `@` before the URL's scheme: a URL's own `user:pass@` (or a model name with an `@`) is not the separator.
      const at = rest.search(/@https?:\/\//i)
      if (at <= 0)
        throw new Error(
          `actor spec ${quoted}: compat needs a model and an http(s) base URL after an @, e.g. compat:llama3.1@http://localhost:11434/v1`,
        )
      return openaiCompatibleModel({
        model: rest.slice(0, at),
        baseURL: rest.slice(at + 1),
        temperature,
        maxTokens,
        ...(settings.SEQK_COMPAT_API_KEY !== undefined ? { apiKey: settings.SEQK_COMPAT_API_KEY } : {}),
        ...limits,
      })
    }
    default:
      // Only the provider is named: the rest of an unknown spec may be anything, a key included.
      throw new Error(
        `actor spec ${JSON.stringify(redactName(kind))}:…: unknown provider ${JSON.stringify(redactName(kind))}; use ${SPEC_FORMS}`,
      )
  }
}

/** The options of {@link actorsFromEnv}. */
export interface ActorsFromEnvOptions {
  /** The variable listing the specs (default `SEQK_ACTORS`). */
  variable?: string
  /**
   * Whether the fallback may run in CI when the variable is unset (default false). An eval that
   * falls back to simulated actors is meant for a real model: in CI without the variable it fails
   * at declaration, saying so, instead of gating the simulation. Set it for an eval whose fallback
   * is what CI should measure (the bundled offline evals), or set `SEQK_ACTORS=simulated` for the run.
   */
  fallbackInCi?: boolean
}

/**
 * The actors listed in `SEQK_ACTORS` (comma-separated specs, see {@link actorFromSpec}), or
 * `fallback` when it is unset — how an eval file runs real models when asked and simulations
 * otherwise. `simulated` in the list stands for the fallback's actors (`SEQK_ACTORS=simulated`
 * runs every file's simulations on purpose, also in CI).
 *
 * In CI (`CI=true`) with the variable unset, a fallback holding a simulated actor throws a
 * {@link SimulationInCiError} at declaration, before any model call: the run would otherwise
 * gate the simulation and say nothing. Set `SEQK_ACTORS` (e.g. from a repository variable), choose
 * the actors in the eval file, set `SEQK_ACTORS=simulated`, or pass `{ fallbackInCi: true }` for
 * an eval meant to run its simulations in CI.
 *
 * @example
 * actors: actorsFromEnv(() => [actors.simulated({ profile: 'reviser' })])
 * actors: actorsFromEnv(() => [actors.simulated({ profile: 'reviser' })], { fallbackInCi: true }) // an offline eval
 */
export function actorsFromEnv(fallback: () => ChatModel[], options: string | ActorsFromEnvOptions = {}): ChatModel[] {
  const { variable = 'SEQK_ACTORS', fallbackInCi = false } =
    typeof options === 'string' ? { variable: options } : options
  const raw = process.env[variable]?.trim()
  if (!raw) {
    const actors = fallback()
    const simulated = actors.filter((a) => isSimulation(a.descriptor))
    if (simulated.length > 0 && !fallbackInCi && isCi())
      throw new SimulationInCiError(
        `actorsFromEnv(): ${variable} is not set`,
        `the eval file's fallback (${simulated.map((a) => a.id).join(', ')}) would run in its place`,
        `set ${variable} to the models to measure (e.g. ${variable}=openai:gpt-4.1-mini, or a repository variable: ${variable}: \${{ vars.${variable} }}), or choose the actors in the eval file`,
      )
    return actors
  }
  return raw
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)
    .flatMap((spec) => (spec === SIMULATED_SPEC ? fallback() : [actorFromSpec(spec)]))
}
