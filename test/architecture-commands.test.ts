// The commands ARCHITECTURE.md tells the next maintainer to run, checked without running them:
// each `npm run` names a script of package.json, each `--project` a project of vitest.config.ts,
// each `npx tsx` file exists, and each `npx vitest` command, listed by `vitest list --filesOnly`
// (Vitest's dry run), selects exactly the files it names (`-u` before a path once swallowed the
// path and reran all 168 unit files).
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import config from '../vitest.config.js'
import { cleanEnv, root, runNode, VITEST } from './fixture-project.js'

const doc = readFileSync(join(root, 'ARCHITECTURE.md'), 'utf8')
/** Every command in a code span, as written (line breaks inside a span joined). */
const commands = [...doc.matchAll(/`((?:npm run |npm test|npx )[^`]*)`/g)].map((m) => m[1]!.replace(/\s+/g, ' ').trim())
const scripts = (JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { scripts: Record<string, string> })
  .scripts
const projects = (config.test?.projects ?? []).map((p) => (p as { test?: { name?: string } }).test?.name)
const projectsOf = (command: string) => [...command.matchAll(/--project[ =](\S+)/g)].map((m) => m[1]!)

describe("ARCHITECTURE.md's commands", () => {
  it('are there to check', () => {
    expect(commands.length).toBeGreaterThan(5)
    expect(commands.some((c) => c.startsWith('npx vitest'))).toBe(true)
  })

  it.each(commands.filter((c) => c.startsWith('npm ')))('%s: a script of package.json, its projects real', (c) => {
    const name = c === 'npm test' ? 'test' : c.split(' ')[2]!
    expect(scripts[name], `package.json has no script "${name}"`).toBeDefined()
    for (const project of projectsOf(scripts[name]!))
      expect(projects, `${name}: --project ${project}`).toContain(project)
  })

  it.each(commands.filter((c) => c.startsWith('npx tsx ')))('%s: the script exists', (c) => {
    expect(existsSync(join(root, c.split(' ')[2]!))).toBe(true)
  })

  it.each(commands.filter((c) => c.startsWith('npx vitest run ')))(
    '%s: selects exactly the files it names (vitest list --filesOnly)',
    async (c) => {
      const args = c.split(' ').slice(3)
      for (const project of projectsOf(c)) expect(projects).toContain(project)
      const named = args.filter((a) => /\.ts$/.test(a))
      const listed = await runNode([VITEST, 'list', '--filesOnly', ...args], {
        cwd: root,
        env: cleanEnv(),
        timeoutMs: 120_000,
      })
      expect(listed.status, listed.out).toBe(0)
      const files = listed.stdout
        .split('\n')
        .map((line) => line.replace(/^\[\w+\] /, '').trim())
        .filter((line) => line.endsWith('.ts'))
      expect(files.sort()).toEqual([...named].sort())
    },
    120_000,
  )
})
