// The house (DESIGN.md §3, drawn in ARCHITECTURE.md): folders import only folders below them in
// ORDER, type imports included; core/ and metrics/ import nothing of ours. The graph is built from
// the sources, so a new upward import fails here, naming the file and what it imports.
import { readFileSync, readdirSync, statSync } from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'
import { describe, expect, it } from 'vitest'

const src = new URL('../src/', import.meta.url).pathname

/** Bottom first: a folder may import any folder before it, and none after. */
const ORDER = [
  'core',
  'metrics',
  'models',
  'verifiers',
  'agents',
  'feedback',
  'protocol',
  'benchmarks',
  'artifacts',
  'analysis',
  'report',
  'testing',
  'vitest',
  'cli',
  '(root)',
]

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name)
    if (statSync(path).isDirectory()) return sources(path)
    return name.endsWith('.ts') && !/\.(test|bench)\.ts$/.test(name) && name !== 'test-helpers.ts' ? [path] : []
  })
}

const folderOf = (path: string): string => {
  const inside = relative(src, path)
  return inside.includes('/') ? inside.split('/')[0]! : '(root)'
}

/** Every import of ours: `import`, `import type`, `export … from` and `import('…')`, as `file -> target`. */
function imports(): { file: string; target: string }[] {
  const out: { file: string; target: string }[] = []
  for (const file of sources(src)) {
    const text = readFileSync(file, 'utf8')
    for (const [, specifier] of text.matchAll(/(?:\bfrom\s+|\bimport\s*\(\s*|^import\s+)['"](\.{1,2}\/[^'"]+)['"]/gm)) {
      out.push({
        file: relative(src, file),
        target: relative(src, resolve(dirname(file), specifier!.replace(/\.js$/, '.ts'))),
      })
    }
  }
  return out
}

describe('the folder graph', () => {
  const edges = imports()

  it('knows every folder', () => {
    const folders = new Set(sources(src).map(folderOf))
    for (const folder of folders)
      expect(
        ORDER,
        `src/${folder}/ is not in the house: add it to ORDER (and DESIGN.md §3, ARCHITECTURE.md)`,
      ).toContain(folder)
    expect(edges.length).toBeGreaterThan(200)
  })

  it('points down the house: no folder imports one above it', () => {
    const upward = edges
      .filter(({ file, target }) => folderOf(join(src, file)) !== folderOf(join(src, target)))
      .filter(
        ({ file, target }) => ORDER.indexOf(folderOf(join(src, target))) > ORDER.indexOf(folderOf(join(src, file))),
      )
      .map(({ file, target }) => `${file} -> ${target}`)
    expect(
      [...new Set(upward)],
      'an import points up the house (DESIGN.md §3): move the shared piece down, or the importer up',
    ).toEqual([])
  })

  it('keeps the package in src/: nothing there imports studies/, test/ or scripts/', () => {
    const out = edges.filter(({ target }) => target.startsWith('..'))
    expect(
      out.map(({ file, target }) => `${file} -> ${target}`),
      'src/ is what ships: research code (studies/) and test helpers stay outside it',
    ).toEqual([])
  })

  it('keeps core/ a leaf: it imports nothing of ours outside core/', () => {
    const out = edges.filter(
      ({ file, target }) => folderOf(join(src, file)) === 'core' && folderOf(join(src, target)) !== 'core',
    )
    expect(out.map(({ file, target }) => `${file} -> ${target}`)).toEqual([])
  })
})
