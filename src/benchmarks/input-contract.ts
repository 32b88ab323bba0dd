/**
 * Input contracts for strengthened tests: the domain a task's inputs come from, inferred from the
 * calls its original tests make and the examples its statement gives (`>>> f(…)`), so that new
 * inputs stay inside it. EvalPlus writes such contracts by hand (`assert n > 0, "invalid inputs"`
 * in each ground truth); here they are read off the data, and kept narrow on purpose: the edge of a
 * domain (0, 1, a negative, an empty list, strings of unequal length, a malformed format) is where
 * statements are vague and reference solutions wrong, so an input the tests never come near is not
 * generated. The statement's words only narrow it, never widen it past what the tests vouch for:
 * upper bounds ("less than 10"), and "sorted" or "distinct" for lists the tests give so; its
 * signature gives the parameters' names for the report.
 *
 * Pure: plain data in, plain data out.
 */
import { parseCallArguments, printPython, type PyValue } from './python-literal.js'

type Kind = PyValue['type']

/** The domain of the values at one place of the input: an argument, a list's items, a tuple's field, a dict's keys or values. */
export interface ValueDomain {
  /** The types the tests give there. */
  kinds: Kind[]
  /**
   * Integers: the range, from the tests' smallest (negatives down to twice the lowest) to twice
   * their largest, less 0 and 1 when the tests never give them there.
   */
  ints?: { min: bigint; max: bigint; without: bigint[] }
  /** Floats: the same, zero only when given. */
  floats?: { min: number; max: number; zero: boolean }
  /** Strings: the characters allowed (those given, and a whole class of letters or digits when the tests use three of it). */
  chars?: string
  /** Strings: every string the tests give there has this shape (digit runs as `#`), e.g. `# apples and # oranges`. */
  format?: string
  /** Strings, lists, tuples, sets and dicts: the sizes allowed (empty only when given). */
  size?: { min: number; max: number }
  /** List and set items. */
  items?: ValueDomain
  /** Tuple fields, by position (a tuple keeps its arity). */
  fields?: ValueDomain[]
  keys?: ValueDomain
  values?: ValueDomain
  /** Every list the tests give there is sorted (ascending), one has three items or more, and the statement says sorted. */
  sorted?: boolean
  /** Every list the tests give there has distinct items, one has three items or more, and the statement says so. */
  distinct?: boolean
  /** In every list the tests give there, the items (strings, lists) have one length. */
  sameItemSize?: boolean
}

/** A relation every call of the tests holds between two arguments (0-based positions). */
export type Relation =
  | { kind: 'same-size'; a: number; b: number; offset: number }
  | { kind: 'index'; index: number; of: number; strict: boolean }
  | { kind: 'order'; a: number; b: number }
  | { kind: 'member'; item: number; of: number }

/** The input domain of one function the tests call. */
export interface InputContract {
  name: string
  /** Parameter names from the statement's `def` line, when it has one. */
  params?: string[]
  /** The argument counts the tests use. */
  arities: number[]
  /** Argument domains by position (over the calls that have that position). */
  args: ValueDomain[]
  relations: Relation[]
  /** Calls it was inferred from: the tests' and the statement's examples'. */
  observations: number
}

const kindsOf = (values: readonly PyValue[]) => [...new Set(values.map((v) => v.type))].sort()
const bigMin = (xs: readonly bigint[]) => xs.reduce((a, b) => (b < a ? b : a))
const bigMax = (xs: readonly bigint[]) => xs.reduce((a, b) => (b > a ? b : a))
const sizeOf = (v: PyValue): number | undefined =>
  v.type === 'str'
    ? [...v.value].length
    : v.type === 'list' || v.type === 'tuple' || v.type === 'set'
      ? v.items.length
      : v.type === 'dict'
        ? v.entries.length
        : undefined
/** A string's shape: each run of digits as `#` (a `#` of its own doubled), the rest as written. */
export const formatOf = (s: string) => s.replace(/#/g, '##').replace(/\d+/g, '#')

const CLASSES: [string, RegExp, string][] = [
  ['lower-case letters', /[a-z]/, 'abcdefghijklmnopqrstuvwxyz'],
  ['upper-case letters', /[A-Z]/, 'ABCDEFGHIJKLMNOPQRSTUVWXYZ'],
  ['digits', /[0-9]/, '0123456789'],
]

/** The characters allowed in new strings: those the tests use, widened to a whole class used three times over. */
function allowedChars(strings: readonly string[]): string {
  const seen = new Set(strings.flatMap((s) => [...s]))
  for (const [, pattern, members] of CLASSES)
    if ([...seen].filter((c) => pattern.test(c)).length >= 3) for (const c of members) seen.add(c)
  return [...seen].sort().join('')
}

/** Values of one kind compare with `<` in Python: numbers with numbers, strings with strings. */
function ascending(items: readonly PyValue[]): boolean {
  for (let i = 1; i < items.length; i++) {
    const [a, b] = [items[i - 1]!, items[i]!]
    if ((a.type === 'int' || a.type === 'float') && (b.type === 'int' || b.type === 'float')) {
      if (Number(a.value) > Number(b.value)) return false
    } else if (a.type === 'str' && b.type === 'str') {
      if (a.value > b.value) return false
    } else return false
  }
  return true
}

const keyOf = (v: PyValue) => printPython(v)

/**
 * Upper bounds a statement names: "less than 10", "at most 5", "no more than", "up to",
 * "between 1 and 100". Which quantity a bound is about is not read: it caps every integer place
 * whose tests stay within it, and never one they go past.
 *
 * @example
 * boundsIn('base numbers are less than 10') // => [10n]
 */
export function boundsIn(statement: string): bigint[] {
  const bounds = new Set<bigint>()
  const pattern =
    /\b(?:less than|smaller than|lower than|below|at most|no more than|not more than|up to|not exceed(?:ing)?|between\s+-?\d+\s+and)\s+(-?\d+)\b/gi
  for (const match of statement.matchAll(pattern)) bounds.add(BigInt(match[1]!))
  return [...bounds].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))
}

/** What a statement's words say of its inputs: only ever narrowing what the tests show. */
export interface StatementHints {
  /** Upper bounds ({@link boundsIn}). */
  bounds: bigint[]
  /** It says "sorted" or "ascending": lists the tests give sorted must stay sorted. */
  sorted: boolean
  /** It says "distinct", "unique" or "no duplicates": lists the tests give without repeats must stay so. */
  distinct: boolean
}

/**
 * The hints of a statement's words.
 *
 * @example
 * hintsIn('Given a sorted list of distinct integers less than 100') // => { bounds: [100n], sorted: true, distinct: true }
 */
export function hintsIn(statement: string): StatementHints {
  return {
    bounds: boundsIn(statement),
    sorted: /\bsorted\b|\bascending\b/i.test(statement),
    distinct: /\bdistinct\b|\bunique\b|\bno duplicates?\b|\bwithout duplicates?\b/i.test(statement),
  }
}

const NO_HINTS: StatementHints = { bounds: [], sorted: false, distinct: false }

/**
 * The domain of the values observed at one place. A list is held sorted, or free of repeats, only
 * when the tests' lists are and the statement says so too (tests write `[1, 2, 3]` by habit).
 */
export function domainOf(values: readonly PyValue[], hints: StatementHints = NO_HINTS): ValueDomain {
  const bounds = hints.bounds
  const domain: ValueDomain = { kinds: kindsOf(values) }
  const ints = values.flatMap((v) => (v.type === 'int' ? [v.value] : []))
  if (ints.length > 0) {
    const [lo, hi] = [bigMin(ints), bigMax(ints)]
    // Below the tests' smallest value: 0 and 1 only when given, negatives only when some are.
    const min = lo < 0n ? 2n * lo : lo >= 2n ? 2n : lo
    // Above: twice the largest, or the statement's bound when the tests stay within it.
    const bound = bounds.find((b) => b >= hi)
    const max = bound !== undefined && bound < 2n * hi ? bound : hi > 0n ? 2n * hi : hi
    domain.ints = { min, max, without: [0n, 1n].filter((x) => x >= min && x <= max && !ints.includes(x)) }
  }
  const floats = values.flatMap((v) => (v.type === 'float' ? [v.value] : []))
  if (floats.length > 0) {
    const [lo, hi] = [Math.min(...floats), Math.max(...floats)]
    domain.floats = { min: lo < 0 ? 2 * lo : lo / 2, max: hi > 0 ? 2 * hi : hi, zero: floats.includes(0) }
  }
  const strs = values.flatMap((v) => (v.type === 'str' ? [v.value] : []))
  if (strs.length > 0) {
    domain.chars = allowedChars(strs)
    const formats = new Set(strs.map(formatOf))
    if (strs.length >= 2 && formats.size === 1) domain.format = [...formats][0]!
  }
  const sizes = values.flatMap((v) => sizeOf(v) ?? [])
  if (sizes.length > 0) {
    const [lo, hi] = [Math.min(...sizes), Math.max(...sizes)]
    domain.size = { min: lo === 0 ? 0 : 1, max: 2 * hi + 2 }
  }
  const sequences = values.flatMap((v) => (v.type === 'list' || v.type === 'set' ? [v.items] : []))
  if (sequences.length > 0) {
    domain.items = domainOf(sequences.flat(), hints)
    const long = sequences.some((s) => s.length >= 3)
    const lists = values.flatMap((v) => (v.type === 'list' ? [v.items] : []))
    if (hints.sorted && long && lists.length > 0 && lists.every(ascending)) domain.sorted = true
    if (hints.distinct && long && lists.every((s) => new Set(s.map(keyOf)).size === s.length)) domain.distinct = true
    const itemSizes = sequences.map((s) => s.map(sizeOf))
    if (
      itemSizes.some((s) => s.length >= 2) &&
      itemSizes.every((s) => s.every((n) => n !== undefined) && new Set(s).size <= 1)
    )
      domain.sameItemSize = true
  }
  const tuples = values.flatMap((v) => (v.type === 'tuple' ? [v.items] : []))
  if (tuples.length > 0) {
    const arity = Math.max(...tuples.map((t) => t.length))
    domain.fields = Array.from({ length: arity }, (_, i) =>
      domainOf(
        tuples.flatMap((t) => t[i] ?? []),
        hints,
      ),
    )
  }
  const dicts = values.flatMap((v) => (v.type === 'dict' ? [v.entries] : []))
  if (dicts.length > 0) {
    domain.keys = domainOf(
      dicts.flat().map(([k]) => k),
      hints,
    )
    domain.values = domainOf(
      dicts.flat().map(([, x]) => x),
      hints,
    )
  }
  return domain
}

const numeric = (v: PyValue | undefined): number | undefined =>
  v?.type === 'int' || v?.type === 'float' ? Number(v.value) : undefined

function contains(container: PyValue, item: PyValue): boolean {
  if (container.type === 'str') return item.type === 'str' && container.value.includes(item.value)
  if (container.type === 'list' || container.type === 'tuple' || container.type === 'set')
    return container.items.some((x) => keyOf(x) === keyOf(item))
  if (container.type === 'dict') return container.entries.some(([k]) => keyOf(k) === keyOf(item))
  return false
}

/** The relations every call holds between two of its arguments. */
function relationsOf(calls: readonly PyValue[][]): Relation[] {
  const width = Math.min(...calls.map((c) => c.length))
  const relations: Relation[] = []
  const all = (test: (args: PyValue[]) => boolean) => calls.every(test)
  for (let a = 0; a < width; a++)
    for (let b = 0; b < width; b++) {
      if (a === b) continue
      const sized = (i: number) => (args: PyValue[]) => sizeOf(args[i]!) !== undefined
      if (a < b && all(sized(a)) && all(sized(b))) {
        // One length, or lengths a constant apart (operators between operands: one fewer).
        const offsets = new Set(calls.map((args) => sizeOf(args[a]!)! - sizeOf(args[b]!)!))
        if (offsets.size === 1) relations.push({ kind: 'same-size', a, b, offset: [...offsets][0]! })
      }
      const isInt = (args: PyValue[]) => args[a]!.type === 'int' && (args[a] as { value: bigint }).value >= 0n
      if (all(isInt) && all(sized(b))) {
        const index = (args: PyValue[]) => Number((args[a] as { value: bigint }).value)
        if (all((args) => index(args) < sizeOf(args[b]!)!))
          relations.push({ kind: 'index', index: a, of: b, strict: true })
        else if (all((args) => index(args) <= sizeOf(args[b]!)!))
          relations.push({ kind: 'index', index: a, of: b, strict: false })
      }
      if (a < b && all((args) => numeric(args[a]) !== undefined && numeric(args[b]) !== undefined)) {
        if (all((args) => numeric(args[a])! <= numeric(args[b])!)) relations.push({ kind: 'order', a, b })
        else if (all((args) => numeric(args[b])! <= numeric(args[a])!)) relations.push({ kind: 'order', a: b, b: a })
      }
      if (
        all((args) => sizeOf(args[a]!) === undefined || args[a]!.type === 'str') &&
        all((args) => ['list', 'tuple', 'set', 'dict', 'str'].includes(args[b]!.type)) &&
        all((args) => contains(args[b]!, args[a]!))
      )
        relations.push({ kind: 'member', item: a, of: b })
    }
  return relations
}

/**
 * The calls of `name` written in a text with literal arguments: `>>> name(…)` examples, `name(…)
 * -> …` lines. The `def name(` line is not a call.
 *
 * @example
 * callsIn(">>> f([1, 2])\n3\nf('a') -> 1", 'f') // => [[list [1, 2]], [str 'a']]
 */
export function callsIn(text: string, name: string): PyValue[][] {
  const calls: PyValue[][] = []
  const pattern = new RegExp(`(?<![\\w.])${name.replace(/[^\w]/g, '')}\\s*\\(`, 'g')
  for (const match of text.matchAll(pattern)) {
    if (/\bdef\s+$/.test(text.slice(Math.max(0, match.index - 8), match.index))) continue
    const end = closingParen(text, match.index + match[0].length)
    if (end === undefined) continue
    const call = parseCallArguments(text.slice(match.index, end + 1))
    if (call) calls.push(call.args)
  }
  return calls
}

/** The index of the `)` that closes the bracket opened just before `from`, skipping strings. */
function closingParen(text: string, from: number): number | undefined {
  let depth = 1
  for (let i = from; i < text.length && i < from + 20_000; i++) {
    const c = text[i]!
    if (c === "'" || c === '"') {
      for (i++; i < text.length && text[i] !== c; i++) if (text[i] === '\\') i++
      continue
    }
    if (c === '(' || c === '[' || c === '{') depth++
    else if (c === ')' || c === ']' || c === '}') {
      depth--
      if (depth === 0) return c === ')' ? i : undefined
    }
    if (c === '\n' && depth > 0 && /^\s*(>>>|$)/.test(text.slice(i + 1, i + 5))) return undefined
  }
  return undefined
}

/** The parameter names of `def name(…)` in a text, when it has that line. */
export function paramsIn(text: string, name: string): string[] | undefined {
  const match = new RegExp(`\\bdef\\s+${name.replace(/[^\w]/g, '')}\\s*\\(`).exec(text)
  if (!match) return undefined
  const end = closingParen(text, match.index + match[0].length)
  if (end === undefined) return undefined
  const inside = text.slice(match.index + match[0].length, end)
  const names: string[] = []
  let depth = 0
  let part = ''
  for (const c of `${inside},`) {
    if ('([{'.includes(c)) depth++
    if (')]}'.includes(c)) depth--
    if (c === ',' && depth === 0) {
      const param = /^\s*\**([A-Za-z_]\w*)/.exec(part)?.[1]
      if (param !== undefined && param !== 'self') names.push(param)
      part = ''
    } else part += c
  }
  return names
}

/**
 * The input contract of `name` from its calls (the tests' and the statement's examples', each a
 * list of literal arguments) and the statement, for parameter names.
 *
 * @example
 * const contract = inferContract('f', [[{ type: 'int', value: 3n }], [{ type: 'int', value: 8n }]])
 * contractViolation(contract, [{ type: 'int', value: 0n }]) // => 'argument 1 is 0, outside 2..16 (...)'
 */
export function inferContract(name: string, calls: readonly PyValue[][], statement = ''): InputContract {
  const arities = [...new Set(calls.map((c) => c.length))].sort((a, b) => a - b)
  const width = Math.max(0, ...arities)
  const params = paramsIn(statement, name)
  const hints = hintsIn(statement)
  return {
    name,
    ...(params ? { params } : {}),
    arities,
    args: Array.from({ length: width }, (_, i) =>
      domainOf(
        calls.flatMap((c) => c[i] ?? []),
        hints,
      ),
    ),
    relations: calls.length > 0 ? relationsOf(calls) : [],
    observations: calls.length,
  }
}

const shown = (v: PyValue) => {
  const text = printPython(v)
  return text.length > 60 ? `${text.slice(0, 57)}...` : text
}

/** Why a value is outside its domain, or undefined when it is inside. */
function outside(d: ValueDomain, v: PyValue, where: string): string | undefined {
  if (!d.kinds.includes(v.type)) return `${where} is a ${v.type}; the tests give ${d.kinds.join(' or ')} there`
  if (v.type === 'int' && d.ints && (v.value < d.ints.min || v.value > d.ints.max))
    return `${where} is ${v.value}, outside ${d.ints.min}..${d.ints.max} (the tests' range)`
  if (v.type === 'int' && d.ints?.without.includes(v.value))
    return `${where} is ${v.value}, which the tests never give there (an edge where statements and references part)`
  // Zero is inside only when the tests' floats reach it: their lowest positive one halved stays above it.
  if (v.type === 'float' && d.floats && !(v.value >= d.floats.min && v.value <= d.floats.max))
    return `${where} is ${v.value}, outside ${d.floats.min}..${d.floats.max} (the tests' range)`
  if (v.type === 'float' && v.value === 0 && d.floats?.zero === false)
    return `${where} is 0.0, which the tests never give there`
  const size = sizeOf(v)
  if (size !== undefined && d.size && (size < d.size.min || size > d.size.max))
    return size === 0
      ? `${where} is empty; the tests never give an empty one there`
      : `${where} has size ${size}, outside ${d.size.min}..${d.size.max}`
  if (v.type === 'str') {
    const odd = [...v.value].find((c) => !(d.chars ?? '').includes(c))
    if (odd !== undefined)
      return `${where} ${shown(v)} has the character ${JSON.stringify(odd)}, which the tests never use there`
    if (d.format !== undefined && formatOf(v.value) !== d.format)
      return `${where} ${shown(v)} does not have the tests' format ${JSON.stringify(d.format)} (# a number)`
  }
  if (v.type === 'list' || v.type === 'set') {
    if (d.sorted && v.type === 'list' && !ascending(v.items))
      return `${where} ${shown(v)} is not sorted; every list the tests give there is`
    if (d.distinct && new Set(v.items.map(keyOf)).size !== v.items.length)
      return `${where} ${shown(v)} repeats an item; the tests' never do there`
    if (d.sameItemSize && new Set(v.items.map(sizeOf)).size > 1)
      return `${where} ${shown(v)} has items of different lengths; the tests' never do there`
    for (const item of v.items) {
      const why = d.items && outside(d.items, item, `an item of ${where}`)
      if (why) return why
    }
  }
  if (v.type === 'tuple')
    for (const [i, item] of v.items.entries()) {
      const field = d.fields?.[i]
      if (!field) return `${where} has ${v.items.length} fields; the tests' tuples there have ${d.fields?.length ?? 0}`
      const why = outside(field, item, `field ${i + 1} of ${where}`)
      if (why) return why
    }
  if (v.type === 'dict')
    for (const [k, x] of v.entries) {
      const why =
        (d.keys && outside(d.keys, k, `a key of ${where}`)) ?? (d.values && outside(d.values, x, `a value of ${where}`))
      if (why) return why
    }
  return undefined
}

const argName = (c: InputContract, i: number) =>
  `argument ${i + 1}${c.params?.[i] !== undefined ? ` (${c.params[i]})` : ''}`

/** Why a relation does not hold for these arguments, or undefined when it does. */
function broken(c: InputContract, r: Relation, args: readonly PyValue[]): string | undefined {
  const [x, y] =
    r.kind === 'same-size' || r.kind === 'order'
      ? [args[r.a], args[r.b]]
      : r.kind === 'index'
        ? [args[r.index], args[r.of]]
        : [args[r.item], args[r.of]]
  if (x === undefined || y === undefined) return undefined
  switch (r.kind) {
    case 'same-size':
      return sizeOf(x)! - sizeOf(y)! === r.offset
        ? undefined
        : r.offset === 0
          ? `${argName(c, r.a)} and ${argName(c, r.b)} have different lengths; in every call of the tests they have one`
          : `${argName(c, r.a)} is not ${r.offset} longer than ${argName(c, r.b)}, as in every call of the tests`
    case 'index': {
      const i = numeric(x)
      const n = sizeOf(y)
      if (i === undefined || n === undefined || (i >= 0 && (r.strict ? i < n : i <= n))) return undefined
      return `${argName(c, r.index)} (${i}) is not an index into ${argName(c, r.of)} (${n} long), as in every call of the tests`
    }
    case 'order': {
      const [a, b] = [numeric(x), numeric(y)]
      if (a === undefined || b === undefined || a <= b) return undefined
      return `${argName(c, r.a)} (${a}) is above ${argName(c, r.b)} (${b}); in every call of the tests it is not`
    }
    case 'member':
      return contains(y, x)
        ? undefined
        : `${argName(c, r.item)} is not in ${argName(c, r.of)}; in every call of the tests it is`
  }
}

/**
 * Why these arguments are outside the contract (the first clause they break, in words), or
 * undefined when they are inside it.
 *
 * @example
 * contractViolation(contract, [{ type: 'str', value: '01Z' }]) // => 'argument 1 (a) '01Z' has the character "Z", ...'
 */
export function contractViolation(contract: InputContract, args: readonly PyValue[]): string | undefined {
  if (!contract.arities.includes(args.length))
    return `${args.length} arguments; the tests give ${contract.arities.join(' or ')}`
  for (const [i, v] of args.entries()) {
    const why = outside(contract.args[i]!, v, argName(contract, i))
    if (why) return why
  }
  for (const r of contract.relations) {
    const why = broken(contract, r, args)
    if (why) return why
  }
  return undefined
}

function describeDomain(d: ValueDomain): string {
  const size = (unit: string) => (d.size ? `${d.size.min}..${d.size.max} ${unit}` : undefined)
  const traits = (...said: (string | false | undefined)[]) => {
    const kept = said.filter((t): t is string => typeof t === 'string')
    return kept.length > 0 ? ` (${kept.join(', ')})` : ''
  }
  const parts = d.kinds.map((kind) => {
    if (kind === 'int' && d.ints)
      return `int ${d.ints.min}..${d.ints.max}${d.ints.without.length > 0 ? ` but ${d.ints.without.join(', ')}` : ''}`
    if (kind === 'float' && d.floats) return `float ${d.floats.min}..${d.floats.max}${d.floats.zero ? '' : ' but 0'}`
    if (kind === 'str')
      return `str${traits(size('characters'), d.format !== undefined && `shaped ${JSON.stringify(d.format)}`)} of ${JSON.stringify(d.chars ?? '')}`
    if ((kind === 'list' || kind === 'set') && d.items)
      return `${kind}${traits(size('items'), d.sorted && 'sorted', d.distinct && 'distinct', d.sameItemSize && 'items of one length')} of ${describeDomain(d.items)}`
    if (kind === 'tuple' && d.fields) return `tuple (${d.fields.map(describeDomain).join(', ')})`
    if (kind === 'dict' && d.keys && d.values)
      return `dict${traits(size('entries'))} of ${describeDomain(d.keys)} to ${describeDomain(d.values)}`
    return kind
  })
  return parts.join(' or ')
}

/**
 * The contract in words, a line per argument and per relation, for the per-task report.
 *
 * @example
 * describeContract(contract) // => ['argument 1 (xs): list (sorted) of int 2..16, size 1..10', ...]
 */
export function describeContract(contract: InputContract): string[] {
  const relation = (r: Relation) =>
    r.kind === 'same-size'
      ? r.offset === 0
        ? `${argName(contract, r.a)} and ${argName(contract, r.b)} have one length`
        : `len(${argName(contract, r.a)}) = len(${argName(contract, r.b)}) ${r.offset > 0 ? '+' : '-'} ${Math.abs(r.offset)}`
      : r.kind === 'index'
        ? `${argName(contract, r.index)} ${r.strict ? '<' : '<='} len(${argName(contract, r.of)})`
        : r.kind === 'order'
          ? `${argName(contract, r.a)} <= ${argName(contract, r.b)}`
          : `${argName(contract, r.item)} is in ${argName(contract, r.of)}`
  return [
    ...contract.args.map((d, i) => `${argName(contract, i)}: ${describeDomain(d)}`),
    ...contract.relations.map(relation),
  ]
}
