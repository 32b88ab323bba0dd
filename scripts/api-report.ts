// The package's public face, read from the sources with the TypeScript compiler: every name each
// entry point of package.json exports, with its kind. `API.md` is this report, committed; the test
// in test/api.test.ts fails when the face changes and the file was not updated with it, so every
// change of the face is deliberate. `npm run api` rewrites API.md.
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import ts from 'typescript'

const root = fileURLToPath(new URL('..', import.meta.url))

/** One exported name: how it is exported (a value, or a type only) and whether its declaration documents it. */
export interface ApiName {
  name: string
  kind: 'function' | 'class' | 'const' | 'enum' | 'interface' | 'type' | 'namespace'
  /** TSDoc on its declaration (or the object it re-exports). */
  documented: boolean
  /** TSDoc with an `@example`. */
  example: boolean
  /** What it is for, in one line: the first sentence of its TSDoc (or of its schema's or type's twin), '' when it has none. */
  purpose: string
}

/** API.md's purposes are cut to this many characters, at a word. */
const PURPOSE_CHARS = 110

/**
 * The first sentence of a TSDoc text as one line: links and code marks kept as their text, cut at
 * a word when longer than the line allows.
 */
export function firstSentence(doc: string): string {
  const flat = doc
    .replace(
      /\{@link(?:code|plain)?\s+([^}|\s]+)(?:[\s|]+([^}]*))?\}/g,
      (_, target: string, label?: string) => label?.trim() || target,
    )
    .replace(/\s+/g, ' ')
    .trim()
  // A sentence ends at a full stop, colon or semicolon followed by a space, outside backticks and brackets.
  let inCode = false
  let depth = 0
  let end = flat.length
  for (let i = 0; i < flat.length; i++) {
    if (flat[i] === '`') inCode = !inCode
    else if (!inCode && flat[i] === '(') depth++
    else if (!inCode && flat[i] === ')') depth = Math.max(0, depth - 1)
    else if (
      !inCode &&
      depth === 0 &&
      '.:;'.includes(flat[i]!) &&
      (i === flat.length - 1 || flat[i + 1] === ' ') &&
      !/\b(e\.g|i\.e|etc|vs)$/.test(flat.slice(0, i))
    ) {
      // `off`: … `record`: … is a list of values, not a sentence: show as much of it as fits.
      if (flat[i] === ':' && flat.slice(0, i).trim().split(' ').length <= 2) return cutAtWord(flat)
      end = i
      break
    }
  }
  return cutAtWord(flat.slice(0, end).trim())
}

/** A line cut to the purpose's width at a word, with an ellipsis when cut. */
function cutAtWord(line: string): string {
  if (line.length <= PURPOSE_CHARS) return line
  const cut = line.slice(0, PURPOSE_CHARS - 1)
  return `${cut.slice(0, cut.lastIndexOf(' ') > 40 ? cut.lastIndexOf(' ') : cut.length)}…`
}

/** Each entry point (`vitest-seqk`, `vitest-seqk/metrics`, …) and the source file it is built from. */
export function entryPoints(): { entry: string; source: string }[] {
  const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
    name: string
    exports: Record<string, string | { import?: string }>
  }
  return Object.entries(pkg.exports).flatMap(([key, target]) => {
    const built = typeof target === 'string' ? target : target.import
    if (!built || !built.endsWith('.js')) return []
    const source = built.replace(/^\.\/dist\//, 'src/').replace(/\.js$/, '.ts')
    return [{ entry: key === '.' ? pkg.name : `${pkg.name}/${key.slice(2)}`, source }]
  })
}

function kindOf(symbol: ts.Symbol): ApiName['kind'] {
  const f = symbol.flags
  if (f & ts.SymbolFlags.Class) return 'class'
  if (f & ts.SymbolFlags.Function) return 'function'
  if (f & ts.SymbolFlags.Enum) return 'enum'
  if (f & ts.SymbolFlags.Variable) return 'const'
  if (f & ts.SymbolFlags.Interface) return 'interface'
  if (f & ts.SymbolFlags.Module) return 'namespace'
  return 'type'
}

/** Every entry point's exported names, sorted, from one program over the sources. */
export function apiReport(): Map<string, ApiName[]> {
  const entries = entryPoints()
  const program = ts.createProgram(
    entries.map((e) => join(root, e.source)),
    {
      target: ts.ScriptTarget.ES2022,
      module: ts.ModuleKind.NodeNext,
      moduleResolution: ts.ModuleResolutionKind.NodeNext,
      strict: true,
      skipLibCheck: true,
      noEmit: true,
      types: ['node'],
    },
  )
  const checker = program.getTypeChecker()
  const out = new Map<string, ApiName[]>()
  for (const { entry, source } of entries) {
    const file = program.getSourceFile(join(root, source))
    if (!file) throw new Error(`${source}: not found (package.json exports ${entry} from it)`)
    const moduleSymbol = checker.getSymbolAtLocation(file)
    if (!moduleSymbol) {
      out.set(entry, [])
      continue
    }
    const names = checker.getExportsOfModule(moduleSymbol).map((exported) => {
      const symbol = exported.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(exported) : exported
      const docs = symbol.getDocumentationComment(checker)
      const tags = symbol.getJsDocTags(checker)
      const text = ts.displayPartsToString(docs)
      return {
        name: exported.getName(),
        kind: kindOf(symbol),
        documented: docs.length > 0 || tags.length > 0,
        example: tags.some((t) => t.name === 'example'),
        purpose: text ? firstSentence(text) : '',
      }
    })
    // A zod schema and its inferred type say the same thing: one's purpose serves the other.
    const byName = new Map(names.map((n) => [n.name, n]))
    for (const n of names) {
      if (n.purpose !== '') continue
      const twin = byName.get(n.name.endsWith('Schema') ? n.name.slice(0, -'Schema'.length) : `${n.name}Schema`)
      const about = lowerFirst(twin?.purpose.replace(/…$/, '') ?? '')
      if (twin?.purpose)
        n.purpose = cutAtWord(
          n.name.endsWith('Schema')
            ? `The zod schema of \`${twin.name}\`: ${about}`
            : `What \`${twin.name}\` checks: ${about}`,
        )
    }
    // `export default` (the reporter) is listed by its role, not its local name.
    out.set(
      entry,
      names.sort((a, b) => a.name.localeCompare(b.name)),
    )
  }
  return out
}

const lowerFirst = (text: string) => (/^[A-Z][a-z]/.test(text) ? `${text[0]!.toLowerCase()}${text.slice(1)}` : text)

const VALUE_KINDS = new Set<ApiName['kind']>(['function', 'class', 'const', 'enum'])

/** Whether a name exists at run time (a value), as opposed to a type only. */
export function isRuntime(name: ApiName): boolean {
  return VALUE_KINDS.has(name.kind)
}

/** API.md's text for a report. */
export function renderApiReport(report: Map<string, ApiName[]>): string {
  const lines = [
    '# The public API of vitest-seqk',
    '',
    'Every name each entry point exports, with its purpose (the first sentence of its TSDoc), read from',
    'the sources by `scripts/api-report.ts`.',
    '`test/api.test.ts` fails when the exports change and this file does not: run `npm run api`',
    'to rewrite it, and review the diff as the change of the public face it is.',
    '',
  ]
  for (const [entry, names] of report) {
    const runtime = names.filter(isRuntime)
    lines.push(
      `## \`${entry}\``,
      '',
      `${runtime.length} runtime ${runtime.length === 1 ? 'name' : 'names'}, ${names.length - runtime.length} type-only.`,
      '',
    )
    for (const n of names) lines.push(`- \`${n.name}\` (${n.kind})${n.purpose ? `: ${n.purpose}` : ''}`)
    lines.push('')
  }
  return lines.join('\n')
}

export const API_FILE = join(root, 'API.md')

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  writeFileSync(API_FILE, renderApiReport(apiReport()))
  console.log(`wrote ${API_FILE}`)
}
