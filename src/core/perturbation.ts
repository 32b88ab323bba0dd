/**
 * Meaning-preserving rewordings of a task's prompt, for prompt robustness (seqEval's `perturb`):
 * each is a deterministic function of the text, the kind and a seed, so a perturbed cell replays
 * the same prompts under every run. They change the wording only, never what the task asks:
 *
 * - `reorder`: the items of a list (lines starting `-`, `*` or `1.`) in another order. A list of
 *   requirements does not depend on its order; prose sentences often do, so they are left alone.
 * - `paraphrase`: the task framed by another template ("Here is a task for you.", "Task:", …).
 * - `format`: list markers, heading case and blank lines changed.
 * - `distractor`: one sentence that says nothing about the task, put between paragraphs.
 *
 * Code is never touched: a fenced block, or a paragraph with an indented line or a line that
 * reads as Python (`def`, `class`, `import`, `return`, …), passes through as it is. A kind with
 * nothing to act on in a prompt (no list to reorder) leaves it as it is: {@link perturbText}
 * says so. The choices are drawn from SHA-256 of the seed, the kind and the task, so nothing here
 * depends on a random generator's state. Imports nothing of ours outside core/.
 */
import { sha256 } from './fingerprint.js'

/** The deterministic perturbation kinds, in the order they are planned. */
export const PERTURBATION_KINDS = ['reorder', 'paraphrase', 'format', 'distractor'] as const
/** A deterministic perturbation kind (see {@link PERTURBATION_KINDS}). */
export type PerturbationKind = (typeof PERTURBATION_KINDS)[number]

/** The version of the transforms: part of every perturbed cell's prompt-builder version. */
export const PERTURBATION_VERSION = 'perturb/1'

/**
 * Sentences that say nothing about any task. A model that is thrown by one of them is sensitive
 * to irrelevant context (Shi et al., 2023, "Large language models can be easily distracted").
 */
export const DISTRACTOR_SENTENCES = [
  'The office kitchen was repainted a pale green last spring.',
  'Several people in the building prefer tea to coffee in the afternoon.',
  'The train to the coast runs every forty minutes on weekends.',
  'A small bookshop nearby reopened after its winter break.',
  'Some of the plants on the third floor were moved closer to the windows.',
  'The weather report mentioned light rain in the northern hills.',
] as const

/** Framings of the task: `{task}` is the prompt as it was. */
export const PARAPHRASE_FRAMINGS = [
  'Here is a task for you.\n\n{task}',
  'Task:\n{task}',
  '{task}\n\nPlease complete the task above.',
  'Consider the following request.\n\n{task}\n\nRespond to it as asked.',
  'I need your help with this.\n\n{task}',
] as const

/** A draw in [0, n) from the seed and the parts: the same parts, the same draw. */
function draw(n: number, ...parts: (string | number)[]): number {
  return Number.parseInt(sha256(parts.join('\u0000')).slice(0, 12), 16) % n
}

/** Python and shell shapes: a paragraph holding one is code, and is never reworded. */
const CODE_LINE = /^(\s+\S|(def|class|import|from|return|if|elif|else|for|while|try|except|with|assert)\b|>>>|```)/

interface Block {
  text: string
  code: boolean
}

/** The text as paragraphs (split at blank lines), fenced code blocks kept whole and marked as code. */
function blocksOf(text: string): Block[] {
  const blocks: Block[] = []
  const fence = /```[\s\S]*?(```|$)/g
  let at = 0
  for (const m of text.matchAll(fence)) {
    blocks.push(...paragraphs(text.slice(at, m.index)))
    blocks.push({ text: m[0], code: true })
    at = m.index + m[0].length
  }
  blocks.push(...paragraphs(text.slice(at)))
  return blocks.filter((b) => b.text.trim() !== '')
}

function paragraphs(text: string): Block[] {
  return text
    .split(/\n[ \t]*\n/)
    .map((p) => p.replace(/^\n+|\n+$/g, ''))
    .filter((p) => p.trim() !== '')
    .map((p) => ({ text: p, code: p.split('\n').some((line) => CODE_LINE.test(line)) }))
}

const LIST_ITEM = /^(\s*)([-*•]|\d+[.)])\s+/

/** Runs of two or more consecutive list items in a prose paragraph, shuffled by the seed. */
function reorder(blocks: Block[], key: string): Block[] {
  return blocks.map((b, bi) => {
    if (b.code) return b
    const lines = b.text.split('\n')
    const out: string[] = []
    for (let i = 0; i < lines.length;) {
      let j = i
      while (j < lines.length && LIST_ITEM.test(lines[j]!)) j++
      if (j - i >= 2) {
        const items = lines.slice(i, j).map((l) => l.replace(LIST_ITEM, ''))
        const markers = lines.slice(i, j).map((l) => LIST_ITEM.exec(l)![0])
        const order = items.map((_, k) => k).sort((x, y) => draw(1e9, key, bi, i, x) - draw(1e9, key, bi, i, y))
        // A shuffle that returns the same order is turned once, so the list always moves.
        if (order.every((v, k) => v === k)) order.push(order.shift()!)
        order.forEach((from, k) => out.push(`${markers[k]}${items[from]}`))
        i = j
      } else out.push(lines[i++]!)
    }
    return { ...b, text: out.join('\n') }
  })
}

/** A heading line: Markdown `#`s, or a short line ending in a colon. */
const HEADING = /^(#{1,6})\s+(.+)$|^([A-Z][^.!?\n]{0,40}):$/

function format(blocks: Block[], key: string): Block[] {
  const style = draw(3, key, 'style')
  return blocks.map((b) => {
    if (b.code) return b
    const lines = b.text.split('\n').map((line) => {
      const heading = HEADING.exec(line)
      if (heading) {
        const title = (heading[2] ?? heading[3])!
        return style === 0 ? `${title.toUpperCase()}:` : style === 1 ? `## ${title}` : `${title}:`
      }
      const item = LIST_ITEM.exec(line)
      if (item) return `${item[1]}${style === 0 ? '*' : style === 1 ? '•' : '-'} ${line.slice(item[0].length)}`
      return line
    })
    return { ...b, text: lines.join('\n') }
  })
}

function distract(blocks: Block[], key: string): Block[] {
  const sentence = DISTRACTOR_SENTENCES[draw(DISTRACTOR_SENTENCES.length, key, 'sentence')]!
  // Between paragraphs (never inside code): after the first, or at the end when there is one.
  const slots = blocks.length + 1
  const at = blocks.length <= 1 ? draw(2, key, 'at') * blocks.length : 1 + draw(slots - 1, key, 'at')
  return [...blocks.slice(0, at), { text: sentence, code: false }, ...blocks.slice(at)]
}

/**
 * The text reworded by one kind under a seed, and whether it changed. `key` is what else the draw
 * depends on (the task's id), so two tasks under one seed get different choices.
 *
 * @example
 * perturbText('Sort the list.\n\n- keep duplicates\n- ascending', 'reorder', 1, 'task-7').text
 * // => 'Sort the list.\n\n- ascending\n- keep duplicates'
 */
export function perturbText(
  text: string,
  kind: PerturbationKind,
  seed: number,
  key: string,
): { text: string; changed: boolean } {
  const k = `${PERTURBATION_VERSION}\u0000${kind}\u0000${seed}\u0000${key}`
  if (kind === 'paraphrase') {
    const framing = PARAPHRASE_FRAMINGS[draw(PARAPHRASE_FRAMINGS.length, k)]!
    return { text: framing.replace('{task}', () => text), changed: true }
  }
  const blocks = blocksOf(text)
  const out = kind === 'reorder' ? reorder(blocks, k) : kind === 'format' ? format(blocks, k) : distract(blocks, k)
  const joined = out.map((b) => b.text).join('\n\n')
  // Nothing to act on: the text as it was (its own whitespace kept), said as unchanged.
  if (out.length === blocks.length && out.every((b, i) => b.text === blocks[i]!.text)) return { text, changed: false }
  return { text: kind === 'format' ? `${joined}\n` : joined, changed: true }
}

/**
 * Which perturbations a prompt shows signs of: a known distractor sentence, a known framing. For
 * simulations that are sensitive to wording (a simulated actor reads the prompt as a model does);
 * a real model needs no such help.
 *
 * @example
 * perturbationSigns(`Add.\n\n${DISTRACTOR_SENTENCES[0]}`) // => { distractor: true, paraphrase: false }
 */
export function perturbationSigns(text: string): { distractor: boolean; paraphrase: boolean } {
  const framed = PARAPHRASE_FRAMINGS.some((f) => {
    const [before, after] = f.split('{task}') as [string, string]
    return (before !== '' && text.startsWith(before)) || (after !== '' && text.endsWith(after))
  })
  return { distractor: DISTRACTOR_SENTENCES.some((s) => text.includes(s)), paraphrase: framed }
}
