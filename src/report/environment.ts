/**
 * The harness and environment a run ran in, for its disclosure card: the versions of vitest-seqk,
 * Vitest, Node, Python and the provider SDKs, the OS and kernel, and the project's git commit and
 * whether its tracked files were unchanged. Collected where the run's summary is written (the
 * reporter at the end of the run; `seqk merge` on the merging machine, and it says so).
 */
import { execFile } from 'node:child_process'
import { existsSync, readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { arch, platform, release, version } from 'node:os'
import { dirname, join } from 'node:path'
import type { DisclosureCard } from '../core/disclosure.js'
import { resolveInterpreter } from '../verifiers/python-tests/interpreter.js'

export type HarnessFacts = DisclosureCard['harness']

/** The SDKs whose versions a card names. */
export const SDK_PACKAGES = ['openai', '@anthropic-ai/sdk'] as const

const GIT_TIMEOUT_MS = 5000

/** `version` of the package.json at `file`, or null. */
function versionAt(file: string): string | null {
  try {
    const json = JSON.parse(readFileSync(file, 'utf8')) as { version?: unknown }
    return typeof json.version === 'string' ? json.version : null
  } catch {
    return null
  }
}

/**
 * The installed version of package `name` as `from` resolves it: its entry point, then up the
 * folders to its package.json (the SDKs do not export `./package.json`).
 */
export function installedVersion(name: string, from: string): string | null {
  let entry: string
  try {
    entry = createRequire(from).resolve(name)
  } catch {
    return null
  }
  for (let dir = dirname(entry); dir !== dirname(dir); dir = dirname(dir)) {
    const file = join(dir, 'package.json')
    if (!existsSync(file)) continue
    try {
      if ((JSON.parse(readFileSync(file, 'utf8')) as { name?: unknown }).name === name) return versionAt(file)
    } catch {
      return null
    }
  }
  return null
}

function git(args: string[], cwd: string): Promise<string | null> {
  return new Promise((done) => {
    execFile('git', args, { cwd, encoding: 'utf8', timeout: GIT_TIMEOUT_MS }, (error, stdout) =>
      done(error ? null : stdout.trim()),
    )
  })
}

/**
 * The project's commit, whether its tracked files match it (untracked files, such as a run's own
 * outputs, do not count) and its branch; nulls outside a git work tree.
 */
export async function gitState(root: string): Promise<HarnessFacts['git']> {
  const [commit, status, branch] = await Promise.all([
    git(['rev-parse', 'HEAD'], root),
    git(['status', '--porcelain', '--untracked-files=no'], root),
    git(['rev-parse', '--abbrev-ref', 'HEAD'], root),
  ])
  return {
    commit: commit || null,
    clean: commit && status !== null ? status === '' : null,
    branch: branch && branch !== 'HEAD' ? branch : null,
  }
}

/**
 * Everything the card's harness part says, but the verifiers and sandbox counts (which come from
 * the run's cells). Never throws: what cannot be found is null.
 *
 * @example
 * const harness = await collectHarness({ root: process.cwd(), pythonUsed: true, sandboxed: true, by: 'reporter' })
 */
export async function collectHarness(input: {
  root: string
  pythonUsed: boolean
  sandboxed: boolean
  by: HarnessFacts['collected']['by']
  note?: string
}): Promise<Omit<HarnessFacts, 'verifiers' | 'sandbox'>> {
  const project = join(input.root, 'package.json')
  // src/report and dist/report are both two levels below the package root.
  const own = versionAt(new URL('../../package.json', import.meta.url).pathname)
  const python = input.pythonUsed
    ? // As the python-tests verifier resolves it: the system interpreter under a sandbox or as root.
      await resolveInterpreter(undefined, { preferSystem: input.sandboxed || process.getuid?.() === 0 }).then(
        (i) => ({ version: i.version, path: i.path }),
        () => null,
      )
    : null
  const sdks = Object.fromEntries(
    SDK_PACKAGES.map((name) => [name, installedVersion(name, project) ?? installedVersion(name, import.meta.url)]),
  )
  return {
    vitestSeqk: own,
    vitest: installedVersion('vitest', project) ?? installedVersion('vitest', import.meta.url),
    node: process.version,
    python,
    pythonUsed: input.pythonUsed,
    sdks,
    os: { platform: platform(), release: release(), version: version(), arch: arch() },
    git: await gitState(input.root),
    collected: { at: new Date().toISOString(), by: input.by, ...(input.note ? { note: input.note } : {}) },
  }
}
