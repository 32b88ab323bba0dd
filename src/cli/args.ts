/**
 * The arguments of `seqk` commands: Node's `util.parseArgs` for the syntax, checked here by kind
 * (integers, numbers with bounds), with errors that name the flag and what would be valid, and
 * the help text laid out within 120 columns.
 */
import { parseArgs } from 'node:util'
import { hangingWrap, TEXT_WIDTH, wrapText } from '../core/text-layout.js'

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

/** The flag a `util.parseArgs` error names (`'--k <value>'`, `'-x'`), without its value placeholder. */
function namedFlag(message: string): string {
  return /'(-{1,2}[^' ]+)/.exec(message)?.[1] ?? ''
}

/**
 * Parses the arguments after the command name against the command's flags, with Node's
 * `util.parseArgs` (strict): `--flag value`, `--flag=value`, boolean flags and `--no-<flag>`,
 * positional paths, `--` to end options; `--help`/`-h` is always accepted (as the boolean flag
 * `help`). Values are then checked by kind, and every error names the flag and what is valid.
 *
 * @throws UsageError on an unknown flag, a missing or invalid value, or a value given to a boolean.
 * @example
 * parseCommand(analyzeSpec, ['.seqk/runs/latest', '--k', '3', '--json=out.json'])
 * // => { command: 'analyze', paths: ['.seqk/runs/latest'], flags: { k: 3, json: 'out.json' } }
 */
export function parseCommand(spec: CommandSpec, argv: readonly string[]): ParsedCommand {
  const byName = new Map(spec.flags.map((f) => [f.name, f]))
  const fail = (message: string): never => {
    throw new UsageError(`seqk ${spec.name}: ${message}`, spec.name)
  }
  let parsed: { values: Record<string, string | boolean | undefined>; positionals: string[] }
  try {
    parsed = parseArgs({
      args: [...argv],
      options: {
        ...Object.fromEntries(
          spec.flags.map((f) => [f.name, { type: f.kind === 'boolean' ? ('boolean' as const) : ('string' as const) }]),
        ),
        help: { type: 'boolean', short: 'h' },
      },
      strict: true,
      allowPositionals: true,
      allowNegative: true,
    })
  } catch (error) {
    const { code, message } = error as { code?: string; message: string }
    const flag = namedFlag(message)
    if (code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION') {
      if (!flag.startsWith('--'))
        fail(`unknown option ${flag} (options are spelled --name; see seqk ${spec.name} --help)`)
      const name = flag.slice(2)
      return fail(`unknown option --${name}${suggestion(name, [...byName.keys()])}`)
    }
    if (code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE') {
      const known = byName.get(flag.slice(2))
      if (known?.kind === 'boolean') {
        const given = argv.find((a) => a.startsWith(`${flag}=`))
        return fail(`${flag} takes no value (got "${given?.slice(flag.length + 1) ?? ''}")`)
      }
      return fail(`${flag} needs a value${known?.value ? ` ${known.value}` : ''}`)
    }
    throw error
  }
  const flags: FlagValues = {}
  for (const [name, raw] of Object.entries(parsed.values)) {
    if (raw === undefined) continue
    const flag = byName.get(name)
    if (name === 'help' || flag === undefined || flag.kind === 'boolean') {
      flags[name] = raw
      continue
    }
    const inline = String(raw)
    if (flag.kind === 'int') {
      const min = flag.min ?? Number.MIN_SAFE_INTEGER
      const value = /^-?\d+$/.test(inline) ? Number(inline) : Number.NaN
      if (!Number.isSafeInteger(value) || value < min)
        fail(`--${name} must be an integer${flag.min !== undefined ? ` >= ${flag.min}` : ''} (got "${inline}")`)
      flags[name] = value
    } else if (flag.kind === 'number') {
      const value = /^-?(\d+\.?\d*|\.\d+)(e-?\d+)?$/i.test(inline) ? Number(inline) : Number.NaN
      const inRange = value >= (flag.min ?? -Infinity) && value <= (flag.max ?? Infinity)
      if (!Number.isFinite(value) || !inRange)
        fail(
          `--${name} must be a number${flag.min !== undefined ? ` from ${flag.min}` : ''}${flag.max !== undefined ? ` to ${flag.max}` : ''} (got "${inline}")`,
        )
      flags[name] = value
    } else {
      if (inline === '') fail(`--${name} needs a non-empty value`)
      flags[name] = inline
    }
  }
  return { command: spec.name, paths: parsed.positionals, flags }
}

/**
 * Help text for a command: usage line, summary, flags, details.
 *
 * @example
 * console.log(commandHelp(analyzeSpec))
 */
export function commandHelp(spec: CommandSpec, width = TEXT_WIDTH): string {
  const rows: [string, string][] = spec.flags.map((f) => [`--${f.name}${f.value ? ` ${f.value}` : ''}`, f.description])
  rows.push(['-h, --help', 'show this help'])
  const left = Math.max(...rows.map(([l]) => l.length))
  return [
    ...hangingWrap('Usage: ', spec.usage ?? `seqk ${spec.name} <run dir or summary.json>... [options]`, width),
    '',
    wrapText(spec.summary, width, 0),
    '',
    'Options:',
    // Each description wraps by words under itself, never under the flags.
    ...rows.flatMap(([l, r]) => hangingWrap(`  ${l.padEnd(left)}  `, r, width)),
    '',
    wrapText(spec.details, width, 2),
  ].join('\n')
}
