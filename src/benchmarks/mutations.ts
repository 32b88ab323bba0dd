/**
 * Type-aware mutation of test inputs (the EvalPlus recipe): integers ±1 and boundary values,
 * floats perturbed, strings edited, lists and tuples with an element removed, inserted, repeated or
 * mutated, dicts with a pair removed, added or mutated, booleans flipped; constants harvested from
 * the task's own tests are reused. Each operator keeps the value's type. Pure: the randomness is
 * a seeded generator passed in.
 */
import type { PyValue } from './python-literal.js'

/** A source of uniform numbers in [0, 1) (a seeded `createRng`). */
export type Random = () => number

/** Constants of the task's tests, by type, reused by the mutations. */
export interface Harvest {
  ints: bigint[]
  floats: number[]
  strs: string[]
}

/** Every int, float and string constant inside `values` (nested ones too), each once. */
export function harvest(values: readonly PyValue[]): Harvest {
  const ints = new Set<bigint>()
  const floats = new Set<number>()
  const strs = new Set<string>()
  const walk = (v: PyValue): void => {
    if (v.type === 'int') ints.add(v.value)
    else if (v.type === 'float') floats.add(v.value)
    else if (v.type === 'str') strs.add(v.value)
    else if (v.type === 'list' || v.type === 'tuple' || v.type === 'set') v.items.forEach(walk)
    else if (v.type === 'dict') v.entries.forEach(([k, x]) => (walk(k), walk(x)))
  }
  values.forEach(walk)
  return { ints: [...ints], floats: [...floats], strs: [...strs] }
}

const pick = <T>(items: readonly T[], rng: Random): T =>
  items[Math.min(items.length - 1, Math.floor(rng() * items.length))]!

/** An integer ±1, 0, ±1 boundary, doubled, negated, or a harvested constant (±1). */
export function mutateInt(value: bigint, rng: Random, h: Harvest): bigint {
  const choices: (() => bigint)[] = [
    () => value + 1n,
    () => value - 1n,
    () => 0n,
    () => -value,
    () => value * 2n,
    () => 1n,
    () => -1n,
  ]
  if (h.ints.length > 0)
    choices.push(
      () => pick(h.ints, rng),
      () => pick(h.ints, rng) + 1n,
    )
  return pick(choices, rng)()
}

/** A float perturbed: scaled by 1 ± a small share, shifted by ±0.5 or ±1, negated, 0.0, or a harvested constant. */
export function mutateFloat(value: number, rng: Random, h: Harvest): number {
  const choices: (() => number)[] = [
    () => value * (1 + (rng() - 0.5) / 5),
    () => value + 0.5,
    () => value - 0.5,
    () => value + 1,
    () => -value,
    () => 0,
  ]
  if (h.floats.length > 0) choices.push(() => pick(h.floats, rng))
  const out = pick(choices, rng)()
  return Number.isFinite(out) ? out : value
}

/** A string with a character removed, inserted, repeated or replaced, its case swapped, emptied, or a harvested constant. */
export function mutateStr(value: string, rng: Random, h: Harvest): string {
  const chars = [...value]
  const at = Math.floor(rng() * (chars.length + 1))
  const alphabet = [...new Set([...chars, ...'aZ 0'])]
  const choices: (() => string)[] = [
    () => [...chars.slice(0, at), pick(alphabet, rng), ...chars.slice(at)].join(''),
    () => '',
    () => value + value,
    () => [...value].map((c) => (c === c.toUpperCase() ? c.toLowerCase() : c.toUpperCase())).join(''),
  ]
  if (chars.length > 0) {
    const i = Math.min(chars.length - 1, at)
    choices.push(
      () => [...chars.slice(0, i), ...chars.slice(i + 1)].join(''),
      () => [...chars.slice(0, i), chars[i]!, ...chars.slice(i)].join(''),
      () => [...chars.slice(0, i), pick(alphabet, rng), ...chars.slice(i + 1)].join(''),
    )
  }
  if (h.strs.length > 0) choices.push(() => pick(h.strs, rng))
  return pick(choices, rng)()
}

/** Items with one removed, one inserted (a mutated copy of another), one repeated, or one mutated. */
export function mutateItems(items: readonly PyValue[], rng: Random, h: Harvest): PyValue[] {
  if (items.length === 0) return []
  const i = Math.floor(rng() * items.length)
  const choices: (() => PyValue[])[] = [
    () => [...items.slice(0, i), ...items.slice(i + 1)],
    () => [...items.slice(0, i), mutateValue(items[i]!, rng, h), ...items.slice(i)],
    () => [...items.slice(0, i), items[i]!, ...items.slice(i)],
    () => [...items.slice(0, i), mutateValue(items[i]!, rng, h), ...items.slice(i + 1)],
  ]
  return pick(choices, rng)()
}

/** Entries with a pair removed, a pair added (a mutated copy's key and value), or a value mutated. Keys stay distinct. */
export function mutateEntries(entries: readonly [PyValue, PyValue][], rng: Random, h: Harvest): [PyValue, PyValue][] {
  if (entries.length === 0) return []
  const i = Math.floor(rng() * entries.length)
  const [key, item] = entries[i]!
  const keyText = (k: PyValue) => JSON.stringify(k, (_, x: unknown) => (typeof x === 'bigint' ? x.toString() : x))
  const choices: (() => [PyValue, PyValue][])[] = [
    () => [...entries.slice(0, i), ...entries.slice(i + 1)],
    () => {
      const added = mutateValue(key, rng, h)
      return entries.some(([k]) => keyText(k) === keyText(added))
        ? [...entries]
        : [...entries, [added, mutateValue(item, rng, h)]]
    },
    () => entries.map(([k, x], j) => [k, j === i ? mutateValue(x, rng, h) : x] as [PyValue, PyValue]),
  ]
  return pick(choices, rng)()
}

/**
 * One mutation of a value, of the same type: the operator for its type. A tuple keeps its arity
 * (it is usually a fixed-shape record): one of its items is mutated.
 *
 * @example
 * mutateValue({ type: 'int', value: 3n }, createRng(1), harvest([])) // an int: 4, 2, 0, -3, 6, 1 or -1
 */
export function mutateValue(v: PyValue, rng: Random, h: Harvest): PyValue {
  switch (v.type) {
    case 'int':
      return { type: 'int', value: mutateInt(v.value, rng, h) }
    case 'float':
      return { type: 'float', value: mutateFloat(v.value, rng, h) }
    case 'str':
      return { type: 'str', value: mutateStr(v.value, rng, h) }
    case 'bool':
      return { type: 'bool', value: !v.value }
    case 'none':
      return v
    case 'list':
    case 'set':
      return { type: v.type, items: mutateItems(v.items, rng, h) }
    case 'tuple': {
      if (v.items.length === 0) return v
      const i = Math.floor(rng() * v.items.length)
      return { type: 'tuple', items: v.items.map((x, j) => (j === i ? mutateValue(x, rng, h) : x)) }
    }
    case 'dict':
      return { type: 'dict', entries: mutateEntries(v.entries, rng, h) }
  }
}
