/**
 * Python literal values as test statements write them (`assert f([1, 2], 'a') == 3`): parsed into
 * plain data, so test inputs can be mutated by type, and printed back as Python. Only literals:
 * numbers, strings, True / False / None, lists, tuples, dicts and sets; anything else (a call, a
 * name, an expression) is not a literal and the statement is left alone.
 */

/** A Python literal value. Integers are bigint (Python's are unbounded); a float keeps its type even when whole. */
export type PyValue =
  | { type: 'int'; value: bigint }
  | { type: 'float'; value: number }
  | { type: 'str'; value: string }
  | { type: 'bool'; value: boolean }
  | { type: 'none' }
  | { type: 'list' | 'tuple' | 'set'; items: PyValue[] }
  | { type: 'dict'; entries: [PyValue, PyValue][] }

class Reader {
  at = 0
  constructor(readonly text: string) {}
  skip(): void {
    while (this.at < this.text.length && /\s/.test(this.text[this.at]!)) this.at++
  }
  peek(): string {
    this.skip()
    return this.text[this.at] ?? ''
  }
  eat(token: string): boolean {
    this.skip()
    if (!this.text.startsWith(token, this.at)) return false
    this.at += token.length
    return true
  }
}

class NotALiteral extends Error {}

function value(r: Reader): PyValue {
  const ch = r.peek()
  if (ch === '[') return sequence(r, '[', ']', 'list')
  if (ch === '(') {
    const start = r.at
    r.eat('(')
    if (r.eat(')')) return { type: 'tuple', items: [] }
    const first = value(r)
    if (r.eat(')')) return first // parentheses around one value
    r.at = start
    return sequence(r, '(', ')', 'tuple')
  }
  if (ch === '{') return braces(r)
  if (ch === "'" || ch === '"') return string(r)
  const word = /^(True|False|None)\b/.exec(r.text.slice(r.at))
  if (word) {
    r.at += word[0].length
    return word[1] === 'None' ? { type: 'none' } : { type: 'bool', value: word[1] === 'True' }
  }
  const number = /^-?\s*(\d[\d_]*\.\d*(e[+-]?\d+)?|\.\d+(e[+-]?\d+)?|\d[\d_]*e[+-]?\d+|\d[\d_]*)/i.exec(
    r.text.slice(r.at),
  )
  if (number) {
    r.at += number[0].length
    const text = number[0].replace(/[\s_]/g, '')
    if (/[.e]/i.test(text)) return { type: 'float', value: Number(text) }
    if (/^-?0\d/.test(text)) throw new NotALiteral('leading zero')
    return { type: 'int', value: BigInt(text) }
  }
  throw new NotALiteral(`not a literal at ${r.at}`)
}

function sequence(r: Reader, open: string, close: string, type: 'list' | 'tuple' | 'set'): PyValue {
  r.eat(open)
  const items: PyValue[] = []
  while (!r.eat(close)) {
    items.push(value(r))
    if (!r.eat(',') && r.peek() !== close) throw new NotALiteral(`expected , or ${close}`)
  }
  return { type, items }
}

function braces(r: Reader): PyValue {
  r.eat('{')
  if (r.eat('}')) return { type: 'dict', entries: [] }
  const first = value(r)
  if (r.peek() !== ':') {
    const items = [first]
    while (!r.eat('}')) {
      if (!r.eat(',')) throw new NotALiteral('expected , in a set')
      if (r.eat('}')) break
      items.push(value(r))
    }
    return { type: 'set', items }
  }
  const entries: [PyValue, PyValue][] = []
  let key = first
  for (;;) {
    if (!r.eat(':')) throw new NotALiteral('expected :')
    entries.push([key, value(r)])
    if (r.eat('}')) return { type: 'dict', entries }
    if (!r.eat(',')) throw new NotALiteral('expected , in a dict')
    if (r.eat('}')) return { type: 'dict', entries }
    key = value(r)
  }
}

const ESCAPES: Record<string, string> = { n: '\n', t: '\t', r: '\r', '\\': '\\', "'": "'", '"': '"', '0': '\0' }

function string(r: Reader): PyValue {
  r.skip()
  const quote = r.text[r.at]!
  if (r.text.startsWith(quote.repeat(3), r.at)) throw new NotALiteral('triple-quoted strings are left alone')
  let out = ''
  let i = r.at + 1
  for (; i < r.text.length && r.text[i] !== quote; i++) {
    const c = r.text[i]!
    if (c === '\n') throw new NotALiteral('unterminated string')
    if (c !== '\\') {
      out += c
      continue
    }
    const next = r.text[++i] ?? ''
    if (!(next in ESCAPES)) throw new NotALiteral(`escape \\${next} is left alone`)
    out += ESCAPES[next]
  }
  if (i >= r.text.length) throw new NotALiteral('unterminated string')
  r.at = i + 1
  // Adjacent literals concatenate ('a' 'b'): left alone rather than half-read.
  if (r.peek() === "'" || r.peek() === '"') throw new NotALiteral('implicit concatenation')
  return { type: 'str', value: out }
}

/**
 * The value of a Python literal, or undefined when the text is not exactly one literal.
 *
 * @example
 * parsePython("[1, 'a', (2.5,)]") // => { type: 'list', items: [int 1, str 'a', tuple [float 2.5]] }
 */
export function parsePython(text: string): PyValue | undefined {
  try {
    const r = new Reader(text)
    const v = value(r)
    r.skip()
    return r.at === text.length ? v : undefined
  } catch (error) {
    if (error instanceof NotALiteral || error instanceof SyntaxError) return undefined
    throw error
  }
}

/**
 * The arguments of a call written with literal positional arguments (`f(1, [2])`), or undefined.
 *
 * @example
 * parseCallArguments('f(1, [2])') // => { name: 'f', args: [int 1, list [int 2]] }
 */
export function parseCallArguments(call: string): { name: string; args: PyValue[] } | undefined {
  const head = /^\s*([A-Za-z_]\w*)\s*\(/.exec(call)
  if (!head) return undefined
  if (/^\s*\)\s*$/.test(call.slice(head[0].length))) return { name: head[1]!, args: [] }
  const tuple = parsePython(`(${call.slice(head[0].length).replace(/\)\s*$/, '')},)`)
  if (!tuple || tuple.type !== 'tuple' || !/\)\s*$/.test(call)) return undefined
  return { name: head[1]!, args: tuple.items }
}

function floatText(value: number): string {
  if (Number.isNaN(value)) return "float('nan')"
  if (!Number.isFinite(value)) return value > 0 ? "float('inf')" : "float('-inf')"
  const text = String(value)
  return /[.e]/.test(text) ? text : `${text}.0`
}

function stringText(value: string): string {
  let out = "'"
  for (const c of value) {
    if (c === '\\') out += '\\\\'
    else if (c === "'") out += "\\'"
    else if (c === '\n') out += '\\n'
    else if (c === '\t') out += '\\t'
    else if (c === '\r') out += '\\r'
    else if (c === '\0') out += '\\0'
    else out += c
  }
  return `${out}'`
}

/**
 * The value as Python source. `parsePython(printPython(v))` is `v` again.
 *
 * @example
 * printPython({ type: 'tuple', items: [{ type: 'int', value: 1n }] }) // => '(1,)'
 */
export function printPython(v: PyValue): string {
  switch (v.type) {
    case 'int':
      return v.value.toString()
    case 'float':
      return floatText(v.value)
    case 'str':
      return stringText(v.value)
    case 'bool':
      return v.value ? 'True' : 'False'
    case 'none':
      return 'None'
    case 'list':
      return `[${v.items.map(printPython).join(', ')}]`
    case 'tuple':
      return v.items.length === 1 ? `(${printPython(v.items[0]!)},)` : `(${v.items.map(printPython).join(', ')})`
    case 'set':
      return v.items.length === 0 ? 'set()' : `{${v.items.map(printPython).join(', ')}}`
    case 'dict':
      return `{${v.entries.map(([k, x]) => `${printPython(k)}: ${printPython(x)}`).join(', ')}}`
  }
}
