import type { ChatModel } from './chat-model.js'
import { anthropicModel } from './providers/anthropic.js'
import { openaiCompatibleModel, openaiModel } from './providers/openai.js'
import { redactName, refuseKeyAsModel } from './redact.js'

const PROVIDERS = ['openai', 'openai-responses', 'anthropic', 'compat']
const SPEC_FORMS = 'openai:<model>, openai-responses:<model>, anthropic:<model> or compat:<model>@<base URL>'

/**
 * One actor from its spec: `openai:<model>`, `openai-responses:<model>`, `anthropic:<model>` or
 * `compat:<model>@<base URL>` (model names may contain `:`, as Ollama tags do).
 * `SEQK_TEMPERATURE` and `SEQK_MAX_TOKENS` set decoding for all of them.
 *
 * @example
 * actorFromSpec('compat:qwen2.5-coder:7b@http://localhost:11434/v1')
 */
export function actorFromSpec(spec: string, env: NodeJS.ProcessEnv = process.env): ChatModel {
  const temperature = env.SEQK_TEMPERATURE === undefined ? undefined : Number(env.SEQK_TEMPERATURE)
  const maxTokens = env.SEQK_MAX_TOKENS === undefined ? undefined : Number(env.SEQK_MAX_TOKENS)
  if (temperature !== undefined && !Number.isFinite(temperature))
    throw new Error(`SEQK_TEMPERATURE must be a number (got ${JSON.stringify(env.SEQK_TEMPERATURE)})`)
  if (maxTokens !== undefined && !(Number.isInteger(maxTokens) && maxTokens > 0))
    throw new Error(`SEQK_MAX_TOKENS must be a positive integer (got ${JSON.stringify(env.SEQK_MAX_TOKENS)})`)
  const colon = spec.indexOf(':')
  const kind = spec.slice(0, colon)
  const rest = spec.slice(colon + 1)
  // A spec may carry a credential (a URL's password, a key pasted by mistake): errors quote it redacted.
  const quoted = JSON.stringify(redactName(spec))
  if (colon < 0 || !rest) throw new Error(`actor spec ${quoted}: expected ${SPEC_FORMS}`)
  // A key where the model goes would name the actor in every output (an unknown provider is refused below, unquoted).
  if (PROVIDERS.includes(kind)) refuseKeyAsModel(`actor spec "${kind}:…"`, rest.replace(/@https?:\/\/.*$/is, ''))
  switch (kind) {
    case 'openai':
      return openaiModel({ model: rest, temperature, maxTokens })
    case 'openai-responses':
      return openaiModel({ model: rest, api: 'responses', temperature, maxTokens, id: `openai-responses:${rest}` })
    case 'anthropic':
      return anthropicModel({ model: rest, temperature, maxTokens })
    case 'compat': {
      // At the `@` before the URL's scheme: a URL's own `user:pass@` (or a model name with an `@`) is not the separator.
      const at = rest.search(/@https?:\/\//i)
      if (at <= 0)
        throw new Error(
          `actor spec ${quoted}: compat needs a model and an http(s) base URL after an @, e.g. compat:llama3.1@http://localhost:11434/v1`,
        )
      return openaiCompatibleModel({ model: rest.slice(0, at), baseURL: rest.slice(at + 1), temperature, maxTokens })
    }
    default:
      // Only the provider is named: the rest of an unknown spec may be anything, a key included.
      throw new Error(
        `actor spec ${JSON.stringify(redactName(kind))}:…: unknown provider ${JSON.stringify(redactName(kind))}; use ${SPEC_FORMS}`,
      )
  }
}

/**
 * The actors listed in `SEQK_ACTORS` (comma-separated specs, see `actorFromSpec`), or `fallback`
 * when it is unset — how the bundled evals run real models when asked and simulations otherwise.
 *
 * @example
 * actors: actorsFromEnv(() => [actors.simulated({ profile: 'reviser' })])
 */
export function actorsFromEnv(fallback: () => ChatModel[], variable = 'SEQK_ACTORS'): ChatModel[] {
  const raw = process.env[variable]?.trim()
  if (!raw) return fallback()
  return raw
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)
    .map((spec) => actorFromSpec(spec))
}
