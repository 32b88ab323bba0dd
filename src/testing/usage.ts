// Token accounting of the test server: an approximate tokenizer (4 characters a token) and two
// deliberately simple prompt-cache simulations, one per provider family.
import { createHash } from 'node:crypto'

/**
 * One text part of the prompt in wire order: a system prompt, or one text part/block of one
 * message. The prompt-cache simulations work on these.
 */
export interface PromptBlock {
  role: 'system' | 'user' | 'assistant'
  /** Which message the block belongs to: -1 for a separate system field (`system`, `instructions`), else the message's index. */
  message: number
  text: string
  /** An Anthropic `cache_control` breakpoint on this block. */
  cacheControl?: { ttl: '5m' | '1h' }
  /** A tool call's arguments or a tool's result: counted as prompt, kept out of the normalised messages. */
  tool?: true
}

/** The test server counts about 4 characters a token. */
const CHARS_PER_TOKEN = 4

/**
 * The test server's approximate token count of `chars` characters: `ceil(chars / 4)`.
 * Handy for asserting the usage the server reports.
 *
 * @example
 * approxTokens('hello world'.length) // 3
 */
export function approxTokens(chars: number): number {
  return Math.ceil(chars / CHARS_PER_TOKEN)
}

/** Total characters of the prompt's text parts (separators between parts are not counted). */
export function promptChars(blocks: readonly PromptBlock[]): number {
  let chars = 0
  for (const block of blocks) chars += block.text.length
  return chars
}

/** The Anthropic simulation's verdict: tokens read from and written to the cache. */
export interface AnthropicCacheUsage {
  cacheReadTokens: number
  cacheWriteTokens: number
  /** The part of `cacheWriteTokens` written with a 1-hour TTL (the rest is 5-minute). */
  cacheWrite1hTokens: number
}

/** OpenAI's automatic caching applies from this many shared prefix tokens on. */
export const OPENAI_CACHE_MIN_TOKENS = 1024
/** ... and counts cached tokens in multiples of this. */
export const OPENAI_CACHE_INCREMENT = 128

/**
 * Prompt-cache state of one test server (cleared by `reset()`).
 *
 * Anthropic (explicit `cache_control`): for each breakpoint, the prefix up to and including its
 * block (canonical JSON of model + system + messages so far, `cache_control` itself excluded) is
 * looked up. The last breakpoint whose prefix was seen before marks the cache read; the tokens
 * from there to each later breakpoint are written; tokens after the last breakpoint are plain
 * input. Every breakpoint's prefix counts as seen afterwards. No minimum cacheable length and no
 * expiry, so small test prompts cache.
 *
 * OpenAI (automatic): the longest prefix (in characters, compared part by part) the prompt shares
 * with any earlier prompt of the same API and model; when it is at least 1024 tokens, that many
 * tokens rounded down to a multiple of 128 are reported as cached.
 */
export class PromptCacheSimulator {
  readonly #anthropicSeen = new Set<string>()
  readonly #openaiSeen = new Map<string, Set<string>>()

  clear(): void {
    this.#anthropicSeen.clear()
    this.#openaiSeen.clear()
  }

  anthropic(model: string, blocks: readonly PromptBlock[]): AnthropicCacheUsage {
    const breakpoints: { key: string; tokens: number; ttl: '5m' | '1h' }[] = []
    const hash = createHash('sha256').update(JSON.stringify(model))
    let chars = 0
    blocks.forEach((block) => {
      chars += block.text.length
      // Canonical JSON, one block at a time: the running hash is the hash of the whole prefix.
      hash.update(`,${JSON.stringify([block.role, block.message, block.text])}`)
      if (block.cacheControl)
        breakpoints.push({ key: hash.copy().digest('hex'), tokens: approxTokens(chars), ttl: block.cacheControl.ttl })
    })
    let lastHit = -1
    breakpoints.forEach((breakpoint, i) => {
      if (this.#anthropicSeen.has(breakpoint.key)) lastHit = i
    })
    const readTokens = lastHit >= 0 ? breakpoints[lastHit]!.tokens : 0
    let written = readTokens
    let write = 0
    let write1h = 0
    for (const breakpoint of breakpoints.slice(lastHit + 1)) {
      const tokens = Math.max(0, breakpoint.tokens - written)
      write += tokens
      if (breakpoint.ttl === '1h') write1h += tokens
      written = Math.max(written, breakpoint.tokens)
    }
    for (const breakpoint of breakpoints) this.#anthropicSeen.add(breakpoint.key)
    return { cacheReadTokens: readTokens, cacheWriteTokens: write, cacheWrite1hTokens: write1h }
  }

  /**
   * Cached tokens for an OpenAI request (`key` is API + model), then remembers the prompt. Only
   * prefixes at 128-token steps can count (OpenAI caches in 128-token increments), so each prompt
   * is remembered as the running hashes at those steps: constant work per request however many
   * came before (comparing with every earlier prompt made long benches slower and slower).
   */
  openai(key: string, blocks: readonly PromptBlock[]): number {
    const seen = this.#openaiSeen.get(key) ?? new Set<string>()
    this.#openaiSeen.set(key, seen)
    const step = OPENAI_CACHE_INCREMENT * CHARS_PER_TOKEN
    const hash = createHash('sha256')
    const steps: string[] = []
    let chars = 0
    let shared = 0
    for (const block of blocks) {
      // Parts must match in role and position, as well as text.
      hash.update(`\u0000${block.role}\u0000${String(block.message)}\u0000`)
      let text = block.text
      while (text.length > 0) {
        const piece = text.slice(0, step - (chars % step))
        hash.update(piece)
        chars += piece.length
        text = text.slice(piece.length)
        if (chars % step === 0) {
          const digest = hash.copy().digest('hex')
          steps.push(digest)
          if (seen.has(digest)) shared = chars
        }
      }
    }
    for (const digest of steps) seen.add(digest)
    const tokens = Math.floor(shared / CHARS_PER_TOKEN)
    return tokens < OPENAI_CACHE_MIN_TOKENS ? 0 : tokens
  }
}
