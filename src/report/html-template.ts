/**
 * An HTML template tag that escapes every value by default, so escaping cannot be forgotten:
 * `html\`<td>${cellId}</td>\`` escapes `cellId`; markup built by `html` itself, or marked with
 * {@link trustedHtml} (a rendered SVG chart, a stylesheet), goes in as it is. Arrays are joined,
 * and `null`, `undefined` and `false` render nothing (for `${cond && html\`…\`}`).
 */
import { escapeHtml } from './escape.js'

const MARKUP = Symbol('seqk.html')

/** Markup that is already safe: made by {@link html}, or declared so with {@link trustedHtml}. */
export interface Html {
  readonly [MARKUP]: string
  toString(): string
}

function markup(text: string): Html {
  return { [MARKUP]: text, toString: () => text }
}

function isHtml(value: unknown): value is Html {
  return typeof value === 'object' && value !== null && MARKUP in value
}

/** What a value inside the tag may be. */
export type HtmlValue = Html | string | number | boolean | null | undefined | readonly HtmlValue[]

function render(value: HtmlValue): string {
  if (value === null || value === undefined || value === false) return ''
  if (isHtml(value)) return value[MARKUP]
  if (Array.isArray(value)) return value.map(render).join('')
  return escapeHtml(String(value))
}

/**
 * Builds markup, escaping every value that is not itself markup.
 *
 * @example
 * String(html`<td title="${'a "b"'}">${'<script>'}</td>`)
 * // => '<td title="a &quot;b&quot;">&lt;script&gt;</td>'
 */
export function html(strings: TemplateStringsArray, ...values: readonly HtmlValue[]): Html {
  let out = strings[0]!
  for (let i = 0; i < values.length; i++) out += render(values[i]!) + strings[i + 1]!
  return markup(out)
}

/**
 * Declares `text` safe markup, inserted without escaping: only for markup this package made
 * (a chart's SVG from vega, the stylesheet, a JSON block escaped for a script element).
 *
 * @example
 * html`<div class="svg">${trustedHtml(svg)}</div>`
 */
export function trustedHtml(text: string): Html {
  return markup(text)
}

/**
 * Joins values into one piece of markup with `separator` (text, escaped) between them, as
 * `Array.prototype.join` does for strings; `null`, `undefined` and `false` items are kept as empty.
 *
 * @example
 * String(joinHtml([html`<b>a</b>`, 'b & c'], ' · ')) // => '<b>a</b> · b &amp; c'
 */
export function joinHtml(values: readonly HtmlValue[], separator: string): Html {
  return markup(values.map(render).join(escapeHtml(separator)))
}

/** The markup's text, for writing to a file or a response. */
export function htmlText(value: HtmlValue): string {
  return render(value)
}
