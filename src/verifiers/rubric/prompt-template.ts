/**
 * Versioned prompt files for graders and critics. A prompt is part of the protocol: its file name
 * carries the version (`grader.v1.md`) and a hash of what reaches the model goes into the
 * fingerprint, so an edit without a version bump still changes the fingerprint.
 *
 * File format (Markdown): anything before the first section is documentation; then sections
 * introduced by a line `## system`, `## user` and optionally `## repair` (the follow-up sent
 * when a reply was malformed). `{{name}}` placeholders are filled at render time.
 */
import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { sha256 } from '../../core/fingerprint.js'
import type { ChatMessage } from '../../models/chat-model.js'

export interface PromptTemplate {
  /** The file name without `.md`, e.g. `grader.v1`. */
  name: string
  /** `name@<8 hex digits of the sections' hash>`: what settings record. */
  id: string
  system: string
  user: string
  repair?: string
}

/** A prompt file is missing or malformed (e.g. the build did not copy it next to the code). */
export class PromptFileError extends Error {
  constructor(message: string) {
    super(message)
    this.name = 'PromptFileError'
  }
}

const SECTIONS = ['system', 'user', 'repair'] as const
type Section = (typeof SECTIONS)[number]

const cache = new Map<string, PromptTemplate>()

/**
 * Reads and caches a prompt file.
 *
 * @throws PromptFileError when the file cannot be read or lacks a `## system` / `## user` section.
 * @example
 * const grader = loadPromptTemplate(new URL('./prompts/grader.v1.md', import.meta.url))
 * grader.id // 'grader.v1@3f9a0c1b'
 */
export function loadPromptTemplate(url: URL): PromptTemplate {
  const key = url.href
  const hit = cache.get(key)
  if (hit) return hit
  const path = fileURLToPath(url)
  let text: string
  try {
    text = readFileSync(url, 'utf8')
  } catch (error) {
    throw new PromptFileError(
      `cannot read prompt file ${path}: ${(error as Error).message}. Prompt files ship next to the code (src/**/prompts/*.md); a build must copy them into dist/ too.`,
    )
  }
  const parts: Partial<Record<Section, string[]>> = {}
  let current: Section | undefined
  for (const line of text.split(/\r?\n/)) {
    const heading = /^## (\w+)\s*$/.exec(line)
    if (heading && (SECTIONS as readonly string[]).includes(heading[1]!)) {
      current = heading[1] as Section
      if (parts[current]) throw new PromptFileError(`prompt file ${path}: section "## ${current}" appears twice`)
      parts[current] = []
      continue
    }
    if (current) parts[current]!.push(line)
  }
  const section = (name: Section) => parts[name]?.join('\n').trim()
  const system = section('system')
  const user = section('user')
  if (!system || !user)
    throw new PromptFileError(`prompt file ${path}: needs a "## system" and a "## user" section, each non-empty`)
  const repair = section('repair')
  const name = path.replace(/^.*[\\/]/, '').replace(/\.md$/, '')
  const hash = sha256(JSON.stringify([system, user, repair ?? null])).slice(0, 8)
  const template: PromptTemplate = { name, id: `${name}@${hash}`, system, user, ...(repair ? { repair } : {}) }
  cache.set(key, template)
  return template
}

/**
 * Fills `{{name}}` placeholders in one pass, so text inside a value (an answer that happens to
 * contain `{{answer}}`) is never substituted again.
 *
 * @throws Error naming the placeholder when a value is missing.
 * @example
 * fill('Hello {{who}}', { who: 'world' }) // 'Hello world'
 */
export function fill(template: string, values: Readonly<Record<string, string>>): string {
  return template.replace(/\{\{(\w+)\}\}/g, (_, name: string) => {
    const value = values[name]
    if (value === undefined) throw new Error(`prompt placeholder {{${name}}} has no value`)
    return value
  })
}

/** The system and user messages of a template with its placeholders filled. */
export function renderPrompt(template: PromptTemplate, values: Readonly<Record<string, string>>): ChatMessage[] {
  return [
    { role: 'system', content: fill(template.system, values) },
    { role: 'user', content: fill(template.user, values) },
  ]
}

/**
 * A conversation as plain text for a grader or critic: one `[role]` header per message.
 *
 * @example
 * renderConversation([{ role: 'user', content: 'Hi' }]) // '[user]\nHi'
 */
export function renderConversation(messages: readonly ChatMessage[]): string {
  return messages.map((m) => `[${m.role}]\n${m.content}`).join('\n\n')
}

/** Escapes `"`, `<` and `&` for a value inside a prompt's pseudo-XML attribute. */
export function attr(value: string): string {
  return value.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;')
}

/**
 * One criterion as a prompt line: `<criterion id="c1" points="5">text</criterion>`. Graders and
 * critics (and the rule-based test responders) read this exact shape.
 */
export function renderCriterion(
  c: { id: string; text: string; points?: number },
  extra: Record<string, string | number> = {},
): string {
  const attrs = [`id="${attr(c.id)}"`, ...Object.entries(extra).map(([k, v]) => `${k}="${attr(String(v))}"`)]
  if (c.points !== undefined) attrs.push(`points="${c.points}"`)
  return `<criterion ${attrs.join(' ')}>${c.text}</criterion>`
}
