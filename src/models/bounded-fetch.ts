/**
 * Every byte from the network is bounded. A 300 KB gzip that inflated to 300 MB was read whole (1
 * GB of memory), and a 200 MB answer was accepted. The SDKs take a `fetch`: ours refuses a body
 * whose `content-length` (the bytes on the wire, compressed or not) is over the cap, and counts
 * the body as it is read, decompressed, failing the read as soon as it passes the cap, so no more
 * than the cap is ever held. The error names the cap and the option that raises it.
 *
 * A body with a `content-length` within the cap and no `content-encoding` is handed over as it
 * came: HTTP/1.1 framing ends it at that length (undici, Node's fetch, reads no byte past it and
 * fails a shorter one), and nothing inflates it, so it cannot pass the cap. Counting it would pipe
 * every answer through a second stream, the larger part of the harness's cost per model call.
 */
import type { FailureKind } from '../core/failure-kind.js'

/** The caps of one model's requests. */
export interface BodyLimits {
  /** Any response body (default {@link DEFAULT_MAX_RESPONSE_BYTES}). */
  responseBytes: number
  /** A batch's results file (OpenAI's output and error files, Anthropic's results). */
  batchResultsBytes: number
}

/** 16 MiB: an answer of a million characters is about 4 MB of JSON at most. */
export const DEFAULT_MAX_RESPONSE_BYTES = 16 * 1024 * 1024
/** 512 MiB for a batch's results, read line by line. */
export const DEFAULT_MAX_BATCH_RESULTS_BYTES = 512 * 1024 * 1024

/** A body over its cap: not retried (the same request gets the same body), it names the cap and its option. */
export class BodyTooLargeError extends Error {
  readonly failureKind: FailureKind = 'model-output'
  constructor(
    readonly url: string,
    readonly capBytes: number,
    readonly option: string,
    what: string,
  ) {
    super(`${what} is over the ${bytesText(capBytes)} cap (${option}); raise ${option} if that much is expected`)
    this.name = 'BodyTooLargeError'
  }
}

/** "16 MiB", "300 kB", "12 B". */
export function bytesText(bytes: number): string {
  if (bytes >= 1024 * 1024) return `${+(bytes / (1024 * 1024)).toFixed(1)} MiB`
  if (bytes >= 1000) return `${+(bytes / 1000).toFixed(1)} kB`
  return `${bytes} B`
}

/** Whether a URL is a batch's results download (OpenAI file content, Anthropic batch results). */
function isBatchResults(url: string): boolean {
  // Most calls are answers: a glance at the string before a URL is parsed for its path.
  if (!url.includes('/content') && !url.includes('/results')) return false
  return /\/files\/[^/]+\/content$|\/messages\/batches\/[^/]+\/results$/.test(new URL(url).pathname)
}

/**
 * A `fetch` whose response bodies are bounded by `limits` (see the module comment), for the SDKs'
 * `fetch` option.
 *
 * @example
 * new OpenAI({ apiKey, fetch: boundedFetch({ responseBytes: 16 << 20, batchResultsBytes: 512 << 20 }) })
 */
export function boundedFetch(limits: BodyLimits, base: typeof fetch = fetch): typeof fetch {
  // No async frame of its own: the SDK awaits the result, and the common path checks in one `then`.
  return (input, init) => base(input, init).then((response) => bounded(response, input, limits))
}

/** `response`, refused or counted as it is read when it could pass its cap (see the module comment). */
function bounded(
  response: Response,
  input: Parameters<typeof fetch>[0],
  limits: BodyLimits,
): Response | Promise<never> {
  const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url
  const batch = isBatchResults(url)
  const cap = batch ? limits.batchResultsBytes : limits.responseBytes
  const option = batch ? 'batch.maxResultsBytes' : 'maxResponseBytes'
  const what = batch ? 'the batch results' : 'the response body'
  const length = response.headers.get('content-length')
  const declared = length !== null && /^\d+$/.test(length) ? Number(length) : NaN
  if (Number.isFinite(declared) && declared > cap) {
    const refused = new BodyTooLargeError(url, cap, option, `${what} (${bytesText(declared)} on the wire)`)
    return Promise.resolve(response.body?.cancel())
      .catch(() => {})
      .then(() => Promise.reject(refused))
  }
  // Framed by its length, not inflated: it cannot pass the cap (see the module comment).
  if (!response.body || (Number.isFinite(declared) && !response.headers.has('content-encoding'))) return response
  let seen = 0
  const counted = response.body.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        seen += chunk.byteLength
        if (seen > cap)
          controller.error(
            new BodyTooLargeError(url, cap, option, `${what} (more than ${bytesText(cap)} decompressed)`),
          )
        else controller.enqueue(chunk)
      },
    }),
  )
  // The body is already decompressed: its old length and encoding no longer describe it.
  const headers = new Headers(response.headers)
  headers.delete('content-length')
  headers.delete('content-encoding')
  const out = new Response(counted, { status: response.status, statusText: response.statusText, headers })
  Object.defineProperty(out, 'url', { value: response.url })
  return out
}
