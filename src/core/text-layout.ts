/**
 * Text layout for everything seqk prints: the width every line fits, visible length (ANSI colour
 * codes stripped, counted in characters, not bytes or UTF-16 units), padding and word wrapping.
 * Generic and domain-free: the tables, notices, help texts and error messages all lay out through
 * these, so "fits 120 columns" means the same everywhere.
 */
import { stripVTControlCharacters } from 'node:util'

/** The terminal width every printed line fits by default (a wide view lifts it: {@link wideFromEnv}). */
export const TEXT_WIDTH = 120

/**
 * Columns a line takes on a terminal: ANSI codes stripped, each character (code point) one
 * column. (`…`, `›`, `–` are one column each although several bytes.)
 *
 * @example
 * visibleLength('\u001b[31mFAIL\u001b[39m …') // => 6
 */
export function visibleLength(text: string): number {
  let n = 0
  for (const _ of stripVTControlCharacters(text)) n++
  return n
}

/**
 * `text` padded with spaces to `width` visible columns, on the right (or on the left with
 * `right`, for numbers); never cut.
 *
 * @example
 * pad('7', 3, true) // => '  7'
 */
export function pad(text: string, width: number, right = false): string {
  const fill = ' '.repeat(Math.max(0, width - visibleLength(text)))
  return right ? fill + text : text + fill
}

/** The one way to ask for the wide view from the environment: `SEQK_WIDE=1` (or `true`, `yes`). */
export function wideFromEnv(env: Readonly<Record<string, string | undefined>>): boolean {
  return /^(1|true|yes)$/i.test(env.SEQK_WIDE ?? '')
}

/**
 * Word-wraps one line to `width` visible columns, continuation lines indented by `indent` spaces
 * past the line's own leading spaces. A word longer than a line keeps a line of its own, whole:
 * a path, a URL or a command must stay copyable from the terminal. Colour codes are kept only on
 * lines that fit unchanged (wrap plain text, colour after).
 *
 * @example
 * wrapLine(' a long note …', 40) // => [' a long note that', '    goes on …']
 */
export function wrapLine(line: string, width = TEXT_WIDTH, indent = 2): string[] {
  if (visibleLength(line) <= width) return [line]
  const lead = /^ */.exec(line)![0]
  const words = line.slice(lead.length).split(/ +/)
  const out: string[] = []
  let current = lead
  const prefix = () => (out.length === 0 ? lead : lead + ' '.repeat(indent))
  for (const word of words) {
    const candidate = current.trim() === '' ? prefix() + word : `${current} ${word}`
    if (visibleLength(candidate) <= width) {
      current = candidate
      continue
    }
    if (current.trim() !== '') out.push(current)
    current = prefix() + word
  }
  if (current.trim() !== '') out.push(current)
  return out
}

/**
 * {@link wrapLine} over every line of a text (a message, a help text, a notice); `width` null
 * leaves it as it is (the wide view).
 *
 * @example
 * wrapText('first line\nsecond, longer line', 13)
 * // => 'first line\nsecond,\n  longer line'
 */
export function wrapText(text: string, width: number | null = TEXT_WIDTH, indent = 2): string {
  if (width === null) return text
  return text
    .split('\n')
    .flatMap((line) => wrapLine(line, width, indent))
    .join('\n')
}

/**
 * A paragraph wrapped to `width` under a fixed first-line prefix, continuation lines aligned under
 * its text: for a definition list such as a help text's flags (`  --k <k>   compare … at this k`).
 *
 * @example
 * hangingWrap('  --k <k>  ', 'compare Pass@k with Seq@k at this k', 30)
 * // => ['  --k <k>  compare Pass@k with', '           Seq@k at this k']
 */
export function hangingWrap(prefix: string, text: string, width = TEXT_WIDTH): string[] {
  const hang = ' '.repeat(visibleLength(prefix))
  const lines = wrapLine(`${hang}${text}`, width, 0)
  return lines.map((line, i) => (i === 0 ? prefix + line.slice(hang.length) : line))
}
