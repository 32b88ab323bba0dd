/**
 * No secret leaves. Provider errors are stored in trajectories, summaries, reports and blobs, and a
 * gateway that echoes the request's headers in its error body would put the API key in all of
 * them. Every text we store that came from a provider goes through {@link redactText}; every base
 * URL we store or print goes through {@link redactUrl}.
 */

/** What a redacted value is replaced with. */
export const REDACTED = '[REDACTED]'

const secrets = new Set<string>()

/** Shorter values are not registered: redacting a four-character "key" would mangle ordinary text. */
const MIN_SECRET = 8

/**
 * Registers a credential (an API key a provider was given, a header's value, a URL's password) so
 * that its value is redacted wherever it appears, in whatever shape a gateway echoes it: as it is,
 * URL-encoded, and base64-encoded inside any longer base64 text (a server that echoes
 * `base64("Bearer <key>")` or a `Basic` header). Short values are ignored.
 *
 * @example
 * registerSecret(key)
 * redactSecrets(Buffer.from(`Bearer ${key}`).toString('base64')) // the key's part is [REDACTED]
 */
export function registerSecret(value: string | undefined): void {
  if (typeof value !== 'string' || value.length < MIN_SECRET || secrets.has(value)) return
  for (const form of encodedForms(value)) if (form.length >= MIN_SECRET) secrets.add(form)
  // Longest first: a secret that contains a shorter one (`pw-zzzz…` and `pw-zz…`) is removed whole, not cut.
  longestFirst = [...secrets].sort((a, b) => b.length - a.length)
}

let longestFirst: string[] = []

/**
 * A secret as it is, URL-encoded, and the base64 of it at each of the three byte alignments it
 * can have inside longer text (only the characters that depend on the secret's bytes alone, so
 * they appear in the base64 of any text that contains it), standard and URL-safe.
 */
function encodedForms(value: string): string[] {
  const forms = new Set([value, encodeURIComponent(value)])
  const bytes = Buffer.from(value, 'utf8')
  for (let offset = 0; offset < 3; offset++) {
    const encoded = Buffer.concat([Buffer.alloc(offset), bytes]).toString('base64')
    // Groups of 3 bytes become 4 characters: skip the group shared with what comes before, and the one with what comes after.
    const start = offset === 0 ? 0 : 4
    const end = Math.floor((offset + bytes.length) / 3) * 4
    const inner = encoded.slice(start, end)
    forms.add(inner)
    forms.add(inner.replaceAll('+', '-').replaceAll('/', '_'))
  }
  return [...forms]
}

/**
 * Providers' key prefixes, each with the shortest body a real key of it has: OpenAI (`sk-`,
 * `sk-proj-`), Anthropic (`sk-ant-`), Google (`AIza`), xAI (`xai-`), Groq (`gsk_`), Hugging Face
 * (`hf_`), GitHub (`ghp_`, `github_pat_`), Perplexity (`pplx-`), Replicate (`r8_`), NVIDIA (`nvapi-`),
 * GitLab (`glpat-`), AWS access key ids (`AKIA`). Only at the start of a token: `task-…` holds no
 * `sk-`, and neither does a model name's segment (`opus-mt-en-sk-…`).
 */
const KEY_PREFIX_SOURCE = [
  'sk-ant-[A-Za-z0-9_-]{8,}',
  'sk-[A-Za-z0-9_-]{16,}',
  'AIza[A-Za-z0-9_-]{30,}',
  'xai-[A-Za-z0-9_-]{20,}',
  'gsk_[A-Za-z0-9]{20,}',
  'hf_[A-Za-z0-9]{20,}',
  'ghp_[A-Za-z0-9]{20,}',
  'github_pat_[A-Za-z0-9_]{20,}',
  'pplx-[A-Za-z0-9]{20,}',
  'r8_[A-Za-z0-9]{20,}',
  'nvapi-[A-Za-z0-9_-]{20,}',
  'glpat-[A-Za-z0-9_-]{20,}',
  'AKIA[0-9A-Z]{16}',
]
  .map((p) => `(?<![A-Za-z0-9_.-])${p}`)
  .join('|')

// Credentials by their shape, whoever's they are: a bearer token, providers' keys, and a header or
// field named like a credential followed by its value.
const PATTERNS: [RegExp, string][] = [
  [/\b(Bearer|Basic)\s+[A-Za-z0-9._~+/=-]{8,}/g, `$1 ${REDACTED}`],
  [new RegExp(KEY_PREFIX_SOURCE, 'g'), REDACTED],
  [
    /((?:x-api-key|api[-_]?key|authorization|access[-_]?token|client[-_]?secret|password)["']?\s*[:=]\s*["']?)(?!Bearer\b|Basic\b|\[REDACTED)([^"'\s,;}&]{6,})/gi,
    `$1${REDACTED}`,
  ],
  // A URL's user info, and credential-like query values, inside free text.
  [/([a-z][a-z0-9+.-]*:\/\/)[^\s/@:]+:[^\s/@]+@/gi, `$1${REDACTED}@`],
  [/([?&](?:api[-_]?key|key|token|access[-_]?token|auth|secret|password|sig|signature)=)[^&\s"'#]+/gi, `$1${REDACTED}`],
]

/**
 * `text` with every registered secret (see {@link registerSecret}) replaced by [REDACTED], and
 * nothing else: for content whose every other character matters, such as a model's answer or a
 * prompt (a code answer may well say `api_key = os.environ[...]`, which {@link redactText} would
 * change). A configured key echoed into an answer is still removed.
 *
 * @example
 * registerSecret(key)
 * redactSecrets(`you sent ${key}`) // => 'you sent [REDACTED]'
 */
export function redactSecrets(text: string): string {
  let out = text
  for (const secret of longestFirst) if (out.includes(secret)) out = out.split(secret).join(REDACTED)
  return out
}

/**
 * `text` with every registered secret and every credential-shaped value replaced by [REDACTED].
 *
 * @example
 * redactText('401: {"headers":{"authorization":"Bearer sk-abc…"}}') // => '401: {"headers":{"authorization":"Bearer [REDACTED]"}}'
 */
export function redactText(text: string): string {
  let out = redactSecrets(text)
  for (const [pattern, replacement] of PATTERNS) out = out.replace(pattern, replacement)
  return out
}

const CREDENTIAL_PARAM = /^(api[-_]?key|key|token|access[-_]?token|auth|secret|password|pass|sig|signature|code)$/i

/**
 * Registers the credentials a URL carries (its password and user name, the values of query
 * parameters named like credentials), as written and decoded, so an echo of them in any text is
 * redacted too (see {@link registerSecret}; short values are ignored).
 *
 * @example
 * registerUrlSecrets('https://gw.example/v1?api-key=abcdef123456') // 'abcdef123456' is now redacted everywhere
 */
export function registerUrlSecrets(url: string): void {
  let parsed: URL
  try {
    parsed = new URL(url)
  } catch {
    return
  }
  const values = [parsed.username, parsed.password]
  // As a pair too: a Basic header is base64("user:pass").
  if (parsed.password !== '') values.push(`${safeDecode(parsed.username)}:${safeDecode(parsed.password)}`)
  for (const [key, value] of parsed.searchParams) if (CREDENTIAL_PARAM.test(key)) values.push(value)
  // As written in the URL too: a gateway may echo the raw query string.
  for (const raw of parsed.search.slice(1).split('&')) {
    const [key, value] = raw.split('=')
    if (key !== undefined && value !== undefined && CREDENTIAL_PARAM.test(safeDecode(key))) values.push(value)
  }
  for (const value of values) {
    registerSecret(value)
    registerSecret(safeDecode(value))
  }
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text)
  } catch {
    return text
  }
}

/**
 * A base URL without its credentials: no user name or password, and the values of query
 * parameters named like credentials (`api-key`, `token`, `sig`, …) replaced. The names stay, so two
 * URLs that differ only in a key are still the same endpoint. The values removed are registered
 * as secrets ({@link registerUrlSecrets}), so an echo of them elsewhere is redacted as well. A
 * string that is not a URL is returned through {@link redactText}.
 *
 * @example
 * redactUrl('https://user:pass@gw.example/v1?api-key=abc&region=eu') // => 'https://gw.example/v1?api-key=%5BREDACTED%5D&region=eu'
 */
export function redactUrl(url: string): string {
  let parsed: URL
  try {
    parsed = new URL(url)
  } catch {
    return redactText(url)
  }
  const hadCredentials =
    parsed.username !== '' ||
    parsed.password !== '' ||
    [...parsed.searchParams.keys()].some((k) => CREDENTIAL_PARAM.test(k))
  if (!hadCredentials) return url
  registerUrlSecrets(url)
  parsed.username = ''
  parsed.password = ''
  for (const key of [...parsed.searchParams.keys()])
    if (CREDENTIAL_PARAM.test(key)) parsed.searchParams.set(key, REDACTED)
  return parsed.toString()
}

/**
 * A run of 20 or more letters and digits that reads as a credential, not as words: letters and
 * digits mixed in short pieces. Split at each change of case or class, a random `aZ3kQ9xLm2…`
 * falls into pieces of under 3 characters on average (99.6% of random 32-64-character keys;
 * the shape is a second net, the configured keys are redacted by value), words and numbers into
 * longer ones (`Llama31Nemotron70BInstructHF`: 4). Pure hexadecimal is left alone: a digest or a
 * commit, which model tags carry (`sha256:6a07…`).
 */
function opaqueRun(run: string): boolean {
  if (run.length < 20 || !/[0-9]/.test(run) || !/[A-Za-z]/.test(run) || /^[0-9a-f]+$/i.test(run)) return false
  const pieces = run.match(/[A-Z]?[a-z]+|[A-Z]+(?![a-z])|[0-9]+/g)?.length ?? 1
  return run.length / pieces < 3
}

/**
 * A name a server, a model or a user gave where a name belongs (the model a response says served
 * it, a tool's name a model called, a model name in a spec), with every credential it may hold
 * replaced: registered secrets, provider key shapes, bearer tokens, and long opaque runs of
 * letters and digits (see {@link looksLikeKey}). A real model name comes back unchanged.
 *
 * @example
 * redactName('meta-llama/Llama-3.1-8B-Instruct') // => 'meta-llama/Llama-3.1-8B-Instruct'
 * redactName(`gpt-4o ${'aZ3kQ9xLm2PqR7tY0bWc5NvE'}`) // => 'gpt-4o [REDACTED]'
 */
export function redactName(name: string): string {
  // Names repeat (a server names the same model on every call): each is read once per set of secrets.
  if (namedWith !== secrets.size) {
    named.clear()
    namedWith = secrets.size
  }
  const known = named.get(name)
  if (known !== undefined) return known
  const out = redactText(name).replace(/[A-Za-z0-9]{20,}/g, (run) => (opaqueRun(run) ? REDACTED : run))
  if (named.size < MAX_NAMED) named.set(name, out)
  return out
}

const named = new Map<string, string>()
let namedWith = -1
const MAX_NAMED = 1024

/**
 * Whether `text` holds something shaped like a credential where a name belongs: a registered
 * secret, a provider's key (`sk-…`, `AIza…`, `hf_…`, …), a bearer token, a credential-named field,
 * or a long opaque run of letters and digits. False for model names (`gpt-4.1-mini`,
 * `claude-sonnet-4-5-20250929`, `qwen2.5-7b-instruct`, `meta-llama/Llama-3.1-8B-Instruct`).
 *
 * @example
 * looksLikeKey('gpt-4.1-mini') // => false
 */
export function looksLikeKey(text: string): boolean {
  return redactName(text) !== text
}

/**
 * Refuses a model name that looks like an API key (a key pasted where the model goes, as in
 * `SEQK_ACTORS=openai:<key>`): the key would become the actor's name in every output. The message
 * names `where` and the fix, never the value.
 *
 * @throws TypeError when `model` looks like a key (see {@link looksLikeKey}).
 * @example
 * refuseKeyAsModel('actors.openai', options.model)
 */
export function refuseKeyAsModel(where: string, model: unknown): void {
  if (typeof model !== 'string' || !looksLikeKey(model)) return
  throw new TypeError(
    `${where}: the model name looks like an API key, so it is not shown here; give the model's name ` +
      "(e.g. 'gpt-4.1-mini'), and the key as apiKey or in the provider's variable " +
      '(OPENAI_API_KEY, ANTHROPIC_API_KEY)',
  )
}
