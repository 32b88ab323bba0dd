/**
 * The disclosure card where people read a run: a section of the HTML report with the same lines
 * `seqk disclose` prints, and two lines of the PR comment (how complete the card is and the
 * harness it ran on; what the run cost and whether a cost cap stopped it). Both read the card the
 * run wrote, so they say what `disclosure.json` says.
 */
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import type { DisclosureCard } from '../core/disclosure.js'
import { compactCount, money, plural } from '../metrics/format.js'
import { DISCLOSURE_FILE, readDisclosure } from './disclosure-file.js'
import { disclosureLines } from './disclosure.js'
import { html, type Html } from './html-template.js'
import { markdownText } from './markdown.js'

/** The card a run directory holds, or undefined when it has none (it was not written, or does not validate). */
export function runCard(runDir: string): DisclosureCard | undefined {
  const path = join(runDir, DISCLOSURE_FILE)
  if (!existsSync(path)) return undefined
  try {
    return readDisclosure(path)
  } catch {
    return undefined
  }
}

/**
 * The report's "Disclosure card" section: each part as a heading and a list, every value escaped.
 *
 * @example
 * disclosureSectionHtml(card) // => '<section class="bench disclosure" id="disclosure"><h2>Disclosure card</h2>…'
 */
export function disclosureSectionHtml(card: DisclosureCard): Html {
  const [title = '', ...rest] = disclosureLines(card)
  const parts: { heading: string; lines: string[] }[] = []
  for (const line of rest) {
    if (line === '') continue
    if (!line.startsWith(' ')) parts.push({ heading: line, lines: [] })
    else parts.at(-1)?.lines.push(line.trim())
  }
  const body = parts.map((p) => html`<h3>${p.heading}</h3><ul>${p.lines.map((l) => html`<li>${l}</li>`)}</ul>`)
  return html`<section class="bench disclosure" id="disclosure"><h2>Disclosure card</h2><div class="card"><p class="lede">${title} · <code>${DISCLOSURE_FILE}</code> in the run directory; <code>seqk disclose</code> prints it</p>${body}</div></section>`
}

/**
 * The PR comment's two lines of the card: completeness and harness, then cost and caps.
 *
 * @example
 * disclosureCommentLines(card)
 * // => ['**Disclosure** 93% complete (14 of 15 fields) · vitest-seqk 0.9.0 · Vitest 4.1.12 · …', '**Cost** $0.41 for 120 calls · …']
 */
export function disclosureCommentLines(card: DisclosureCard): [string, string] {
  const m = card.completeness
  const h = card.harness
  const c = card.cost
  const missing = m.missing.length > 0 ? ` (missing ${m.missing.map((x) => x.field).join(', ')})` : ''
  const commit = h.git.commit
    ? `commit ${h.git.commit.slice(0, 12)}${h.git.clean === null ? '' : h.git.clean ? ' (clean)' : ' (modified)'}`
    : 'commit unknown'
  const harness = [
    `vitest-seqk ${h.vitestSeqk ?? 'unknown'}`,
    `Vitest ${h.vitest ?? 'unknown'}`,
    `Node ${h.node ?? 'unknown'}`,
    ...(h.pythonUsed ? [`Python ${h.python?.version ?? 'unknown'}`] : []),
    commit,
  ]
  const first = `**Disclosure** ${Math.round(m.score * 100)}% complete (${m.known} of ${m.required} fields)${missing} · ${harness.join(' · ')}`
  const tokens =
    c.usage === null
      ? 'tokens unknown'
      : `${compactCount(c.usage.inputTokens)} tokens in, ${compactCount(c.usage.outputTokens)} out`
  const wall = c.wallTimeMs === null ? 'wall time unknown' : `wall time ${(c.wallTimeMs / 1000).toFixed(1)} s`
  const estimate =
    c.estimate && c.estimate.error !== null
      ? [`estimate error ${c.estimate.error >= 0 ? '+' : ''}${(c.estimate.error * 100).toFixed(1)}%`]
      : []
  const capped = card.failures.unfinishedCells.filter((u) => u.reason.startsWith('stopped at the cost cap')).length
  const caps = capped > 0 ? [`${plural(capped, 'cell')} stopped at the cost cap`] : []
  const second = `**Cost** ${money(c.costUsd)} for ${plural(c.calls, 'call')} (${tokens}) · ${wall}${[...estimate, ...caps].map((x) => ` · ${x}`).join('')}`
  return [markdownText(first), markdownText(second)]
}
