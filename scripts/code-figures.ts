/**
 * Two readability figures of the production code (src/, tests, benches and test helpers left
 * out), measured the same way each time: the lines wider than the formatter's 120 columns (counted
 * in characters, not bytes) and the longest functions (every function, method, arrow and
 * accessor, from the TypeScript syntax tree; a nested function counts in its own length and in its
 * parent's).
 *
 *   npx tsx scripts/code-figures.ts              # the figures and the 15 longest functions
 *   npx tsx scripts/code-figures.ts --top 40     # more of them
 *   npx tsx scripts/code-figures.ts --json       # as JSON
 */
import { readdirSync, readFileSync, statSync } from 'node:fs'
import { join, relative } from 'node:path'
import { fileURLToPath } from 'node:url'
import ts from 'typescript'

const WIDTH = 120
const root = fileURLToPath(new URL('..', import.meta.url))
const args = process.argv.slice(2)
const top = args.includes('--top') ? Number(args[args.indexOf('--top') + 1]) : 15

/** The production sources: src/**\/*.ts but tests, benches and test helpers. */
function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name)
    if (statSync(path).isDirectory()) return sources(path)
    return /\.ts$/.test(name) && !/\.(test|bench)\.ts$/.test(name) && name !== 'test-helpers.ts' ? [path] : []
  })
}

interface LongFunction {
  file: string
  line: number
  name: string
  lines: number
}

/** A function's name as a reader finds it: its own, its variable's or property's, else `(anonymous)`. */
function nameOf(node: ts.Node): string {
  const named = (n: ts.Node | undefined) =>
    n && (ts.isIdentifier(n) || ts.isStringLiteral(n) || ts.isPrivateIdentifier(n)) ? n.text : undefined
  if (
    (ts.isFunctionDeclaration(node) ||
      ts.isMethodDeclaration(node) ||
      ts.isGetAccessorDeclaration(node) ||
      ts.isSetAccessorDeclaration(node) ||
      ts.isFunctionExpression(node)) &&
    node.name
  )
    return named(node.name) ?? '(computed)'
  if (ts.isConstructorDeclaration(node)) return 'constructor'
  const parent = node.parent
  if (
    parent &&
    (ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent) || ts.isPropertyDeclaration(parent))
  )
    return named(parent.name) ?? '(anonymous)'
  return '(anonymous)'
}

const files = sources(join(root, 'src'))
let wide = 0
let widest = { file: '', line: 0, width: 0 }
const functions: LongFunction[] = []
let lineCount = 0
for (const path of files) {
  const text = readFileSync(path, 'utf8')
  const file = relative(root, path)
  const lines = text.split('\n')
  lineCount += lines.length
  for (const [i, line] of lines.entries()) {
    // Characters, not UTF-16 units or bytes: `…` and `›` are one column each.
    const width = [...line].length
    if (width > WIDTH) wide++
    if (width > widest.width) widest = { file, line: i + 1, width }
  }
  const source = ts.createSourceFile(path, text, ts.ScriptTarget.Latest, true)
  const visit = (node: ts.Node): void => {
    if (ts.isFunctionLike(node) && 'body' in node && node.body) {
      const start = source.getLineAndCharacterOfPosition(node.getStart(source)).line
      const end = source.getLineAndCharacterOfPosition(node.getEnd()).line
      functions.push({ file, line: start + 1, name: nameOf(node), lines: end - start + 1 })
    }
    ts.forEachChild(node, visit)
  }
  visit(source)
}
functions.sort((a, b) => b.lines - a.lines)
const figures = {
  files: files.length,
  lines: lineCount,
  linesOver120: wide,
  widestLine: widest,
  functionsOver100: functions.filter((f) => f.lines > 100).length,
  functionsOver150: functions.filter((f) => f.lines > 150).length,
  longest: functions.slice(0, top),
}
if (args.includes('--json')) console.log(JSON.stringify(figures, null, 2))
else {
  console.log(
    `production code: ${figures.files} files, ${figures.lines} lines (src/, no tests, benches or test helpers)`,
  )
  console.log(`lines over ${WIDTH} columns: ${wide} (widest: ${widest.width} at ${widest.file}:${widest.line})`)
  console.log(`functions over 100 lines: ${figures.functionsOver100}; over 150: ${figures.functionsOver150}`)
  console.log(`the ${top} longest:`)
  for (const f of figures.longest) console.log(`  ${String(f.lines).padStart(4)}  ${f.name} (${f.file}:${f.line})`)
}
