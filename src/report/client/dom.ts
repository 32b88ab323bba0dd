/**
 * Building the report's DOM from data: every node made with `createElement` and every text set as
 * text (never markup), so model text cannot become markup. ESLint forbids the markup sinks in
 * this folder.
 */

/**
 * An element's attributes: `class` and `style` set as properties, `true` as an empty attribute,
 * left out when null, undefined or false.
 */
export type Attrs = Record<string, string | number | boolean | null | undefined>
/** What an element may hold: nodes, text and numbers, nothing (null, undefined, false), or lists of them. */
export type Kid = Node | string | number | null | undefined | false | readonly Kid[]

/**
 * A `tag` element with `attrs` and `kids`, each kid appended as a node or as text.
 *
 * @example
 * el('p', { class: 'note' }, 'Attempt ', 2, ' of ', 5) // <p class="note">Attempt 2 of 5</p>
 */
export function el<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs: Attrs | null,
  ...kids: Kid[]
): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag)
  if (attrs)
    Object.keys(attrs).forEach((k) => {
      const v = attrs[k]
      if (v === null || v === undefined || v === false) return
      if (k === 'class') node.className = String(v)
      else if (k === 'style') node.style.cssText = String(v)
      else node.setAttribute(k, v === true ? '' : String(v))
    })
  for (const kid of kids) append(node, kid)
  return node
}

function append(node: Element, kid: Kid): void {
  if (kid === null || kid === undefined || kid === false) return
  if (Array.isArray(kid)) (kid as readonly Kid[]).forEach((k) => append(node, k))
  else node.append(kid instanceof Node ? kid : String(kid))
}
