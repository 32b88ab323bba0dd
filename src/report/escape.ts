/**
 * Escaping for the HTML report. Everything a model, a task or a user wrote (answers, feedback,
 * test calls, cell and task ids) goes through one of these before it reaches the page.
 */

const HTML_ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' }

/**
 * Escapes text for HTML element content and for quoted attribute values.
 *
 * @example
 * escapeHtml('<b title="x">') // => '&lt;b title=&quot;x&quot;&gt;'
 */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (ch) => HTML_ESCAPES[ch] ?? ch)
}

/**
 * JSON that is safe inside `<script type="application/json">`: `<`, `>` and `&` become `\u003c`
 * etc., so no answer can close the script element (`</script>`) or open a comment (`<!--`), and
 * U+2028/U+2029 are escaped for older JavaScript parsers. `JSON.parse` reads it back unchanged.
 *
 * @example
 * jsonForScript({ a: '</script>' }) // => '{"a":"\\u003c/script\\u003e"}'
 */
export function jsonForScript(value: unknown): string {
  return JSON.stringify(value)
    .replace(/</g, '\\u003c')
    .replace(/>/g, '\\u003e')
    .replace(/&/g, '\\u0026')
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029')
}
