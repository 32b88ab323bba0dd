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
}

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

// Credentials by their shape, whoever's they are: a bearer token, OpenAI and Anthropic keys, and a
// header or field named like a credential followed by its value.
const PATTERNS: [RegExp, string][] = [
  [/\b(Bearer|Basic)\s+[A-Za-z0-9._~+/=-]{8,}/g, `$1 ${REDACTED}`],
  [/\bsk-ant-[A-Za-z0-9_-]{8,}/g, REDACTED],
  [/\bsk-[A-Za-z0-9_-]{16,}/g, REDACTED],
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
  for (const secret of secrets) if (out.includes(secret)) out = out.split(secret).join(REDACTED)
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
