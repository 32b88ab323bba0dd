/**
 * A small argv parser for `seqk` (no dependency): `--flag value`, `--flag=value`, boolean flags,
 * positional paths, and `--` to end options. Errors name the flag and what would be valid.
 */

export interface FlagSpec {
  name: string
  kind: 'int' | 'number' | 'string' | 'boolean'
  /** Smallest valid value of an int or number flag. */
  min?: number
  /** Largest valid value of a number flag. */
  max?: number
  /** Shown in help after the flag, e.g. `<file>`. */
  value?: string
  description: string
}

export interface CommandSpec {
  name: string
  /** The help's usage line when the command takes something other than runs (default `seqk <name> <run dir or summary.json>... [options]`). */
  usage?: string
  summary: string
  /** Help text after the flags (what the command prints, an example). */
  details: string
  flags: FlagSpec[]
}

export type FlagValues = Record<string, string | number | boolean | undefined>

export interface ParsedCommand {
  command: string
  paths: string[]
  flags: FlagValues
}

/** Bad command-line input: the CLI prints the message and a pointer to `--help`, exit code 1. */
export class UsageError extends Error {
  readonly command: string | null
  constructor(message: string, command: string | null) {
    super(message)
    this.name = 'UsageError'
    this.command = command
  }
}

function distance(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, j) => j)
  for (let i = 1; i <= a.length; i++) {
    let diagonal = row[0] as number
    row[0] = i
    for (let j = 1; j <= b.length; j++) {
      const above = row[j] as number
      row[j] = Math.min(above + 1, (row[j - 1] as number) + 1, diagonal + (a[i - 1] === b[j - 1] ? 0 : 1))
      diagonal = above
    }
  }
  return row[b.length] as number
}

function suggestion(name: string, known: readonly string[]): string {
  const close = known.filter((k) => distance(name, k) <= 2).sort((x, y) => distance(name, x) - distance(name, y))
  return close[0] === undefined ? '' : ` (did you mean --${close[0]}?)`
}

/**
 * Parses the arguments after the command name against the command's flags. `--help`/`-h` is
 * always accepted (as the boolean flag `help`); `--no-<flag>` turns a boolean flag off.
 *
 * @throws UsageError on an unknown flag, a missing or invalid value, or a value given to a boolean.
 * @example
 * parseCommand(analyzeSpec, ['.seqk/runs/latest', '--k', '3', '--json=out.json'])
 * // => { command: 'analyze', paths: ['.seqk/runs/latest'], flags: { k: 3, json: 'out.json' } }
 */
export function parseCommand(spec: CommandSpec, argv: readonly string[]): ParsedCommand {
  const flags: FlagValues = {}
  const paths: string[] = []
  const byName = new Map(spec.flags.map((f) => [f.name, f]))
  const fail = (message: string): never => {
    throw new UsageError(`seqk ${spec.name}: ${message}`, spec.name)
  }
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string
    if (arg === '--') {
      paths.push(...argv.slice(i + 1))
      break
    }
    if (arg === '-h' || arg === '--help') {
      flags.help = true
      continue
    }
    if (!arg.startsWith('-') || arg === '-') {
      paths.push(arg)
      continue
    }
    if (!arg.startsWith('--')) fail(`unknown option ${arg} (options are spelled --name; see seqk ${spec.name} --help)`)
    const eq = arg.indexOf('=')
    let name = eq === -1 ? arg.slice(2) : arg.slice(2, eq)
    let inline: string | undefined = eq === -1 ? undefined : arg.slice(eq + 1)
    let negated = false
    if (!byName.has(name) && name.startsWith('no-') && byName.get(name.slice(3))?.kind === 'boolean') {
      name = name.slice(3)
      negated = true
    }
    const flag = byName.get(name)
    if (flag === undefined) return fail(`unknown option --${name}${suggestion(name, [...byName.keys()])}`)
    if (flag.kind === 'boolean') {
      if (inline !== undefined) fail(`--${name} takes no value (got "${inline}")`)
      flags[name] = !negated
      continue
    }
    if (inline === undefined) {
      const next = argv[i + 1]
      if (next === undefined || (next.startsWith('--') && next.length > 2)) fail(`--${name} needs a value${flag.value ? ` ${flag.value}` : ''}`)
      inline = next as string
      i++
    }
    if (flag.kind === 'int') {
      const min = flag.min ?? Number.MIN_SAFE_INTEGER
      const value = /^-?\d+$/.test(inline) ? Number(inline) : Number.NaN
      if (!Number.isSafeInteger(value) || value < min) fail(`--${name} must be an integer${flag.min !== undefined ? ` >= ${flag.min}` : ''} (got "${inline}")`)
      flags[name] = value
    } else if (flag.kind === 'number') {
      const value = /^-?(\d+\.?\d*|\.\d+)(e-?\d+)?$/i.test(inline) ? Number(inline) : Number.NaN
      const inRange = value >= (flag.min ?? -Infinity) && value <= (flag.max ?? Infinity)
      if (!Number.isFinite(value) || !inRange) fail(`--${name} must be a number${flag.min !== undefined ? ` from ${flag.min}` : ''}${flag.max !== undefined ? ` to ${flag.max}` : ''} (got "${inline}")`)
      flags[name] = value
    } else {
      if (inline === '') fail(`--${name} needs a non-empty value`)
      flags[name] = inline
    }
  }
  return { command: spec.name, paths, flags }
}

/**
 * Help text for a command: usage line, summary, flags, details.
 *
 * @example
 * console.log(commandHelp(analyzeSpec))
 */
export function commandHelp(spec: CommandSpec): string {
  const rows: [string, string][] = spec.flags.map((f) => [`--${f.name}${f.value ? ` ${f.value}` : ''}`, f.description])
  rows.push(['-h, --help', 'show this help'])
  const width = Math.max(...rows.map(([left]) => left.length))
  return [
    `Usage: ${spec.usage ?? `seqk ${spec.name} <run dir or summary.json>... [options]`}`,
    '',
    spec.summary,
    '',
    'Options:',
    ...rows.map(([left, right]) => `  ${left.padEnd(width)}  ${right}`),
    '',
    spec.details,
  ].join('\n')
}
