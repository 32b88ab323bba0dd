// Builds dist/: compiles src/ with tsc (declarations included) and copies the non-TS files the
// code loads at run time (the Python harness). The JSON Schema files in schemas/ are committed
// and written only by `npm run schemas` (a test checks they match the zod schemas).
import { execFileSync } from 'node:child_process'
import { cpSync, readdirSync, rmSync, statSync } from 'node:fs'
import { join, relative } from 'node:path'

const root = new URL('..', import.meta.url).pathname
rmSync(join(root, 'dist'), { recursive: true, force: true })
execFileSync(process.execPath, [join(root, 'node_modules/typescript/bin/tsc'), '-p', join(root, 'tsconfig.build.json')], { stdio: 'inherit' })

const assets = (dir) =>
  readdirSync(dir).flatMap((name) => {
    const path = join(dir, name)
    // The Python harness, and the versioned prompt files critics and graders read at run time.
    return statSync(path).isDirectory() ? assets(path) : name.endsWith('.py') || (name.endsWith('.md') && dir.endsWith('/prompts')) ? [path] : []
  })
for (const file of assets(join(root, 'src'))) cpSync(file, join(root, 'dist', relative(join(root, 'src'), file)))

