// The example manifests of examples/kubernetes, examples/cloud-run and examples/aws-batch, checked
// against the engines' schemas and against what seqk reads from them. Kubernetes: the validators
// the kubernetes-models package generates from the Kubernetes OpenAPI schema (the published one;
// it lets unknown fields pass, as the API server does without strict field validation). Cloud Run
// and AWS Batch publish no JSON schema on the npm registry: a subset written by hand from their API
// references (test/fixtures/batch-engines/*.schema.json, each saying its sources), which refuses
// any field it does not know. Each schema is shown to fail on a broken copy.
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { Ajv, type ValidateFunction } from 'ajv'
import { PersistentVolumeClaim } from 'kubernetes-models/v1/PersistentVolumeClaim'
import { Job } from 'kubernetes-models/batch/v1/Job'
import { parseAllDocuments } from 'yaml'
import { describe, expect, it } from 'vitest'
import { shardFromEnv, shardSource } from '../src/protocol/shard.js'
import { SHARDS_CAP_ENV, SHARDS_SPEND_DIR_ENV } from '../src/vitest/cost-caps.js'

const root = join(import.meta.dirname, '..')
/** A manifest as parsed: read by path in these checks, its shape being what the schemas check. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- engine manifests, validated by their schemas above all
type Manifest = Record<string, any>
const yamlDocs = (path: string) =>
  parseAllDocuments(readFileSync(join(root, path), 'utf8')).map((d) => d.toJS() as Manifest)
const json = (path: string) => JSON.parse(readFileSync(join(root, path), 'utf8')) as Manifest
const clone = <T>(x: T): T => structuredClone(x)

/** Validates a Kubernetes object with the generated validator of its kind; the error text, or undefined. */
function kubernetesProblem(doc: Manifest): string | undefined {
  const Model = { Job, PersistentVolumeClaim }[doc.kind as 'Job' | 'PersistentVolumeClaim']
  if (!Model) return `no validator for kind ${doc.kind}`
  try {
    new Model(doc as never).validate()
    return undefined
  } catch (error) {
    return (error as Error).message
  }
}

// strictRequired off: a `not: { required: [value, valueFrom] }` names properties its own level does not define.
const ajv = new Ajv({ allErrors: true, strict: true, strictRequired: false })
const cloudRunSchema = ajv.compile(json('test/fixtures/batch-engines/cloud-run-job.schema.json'))
ajv.addSchema(json('test/fixtures/batch-engines/aws-batch.schema.json'))
const awsSchema = (name: string) => ajv.getSchema(`seqk:aws-batch-subset#/definitions/${name}`)!
const problem = (validate: ValidateFunction, doc: unknown) =>
  validate(doc) ? undefined : ajv.errorsText(validate.errors, { separator: '; ' })

/** The value of a container's env variable as the manifest sets it. */
function envOf(container: { env?: { name: string; value?: string }[] }): Record<string, string> {
  return Object.fromEntries((container.env ?? []).filter((e) => e.value !== undefined).map((e) => [e.name, e.value!]))
}

/** The shard directories a command joins with seqk merge. */
const mergedDirs = (command: string) => [...command.matchAll(/shard-(\d+)/g)].map((m) => Number(m[1]))

describe('examples/kubernetes: an Indexed Job and a merge Job', () => {
  const shards = yamlDocs('examples/kubernetes/shards.yaml')
  const [merge] = yamlDocs('examples/kubernetes/merge.yaml')
  const job = shards.find((d) => d.kind === 'Job')!

  it('every object validates against the Kubernetes schema', () => {
    for (const doc of [...shards, merge!])
      expect(kubernetesProblem(doc), `${doc.kind} ${doc.metadata?.name}`).toBe(undefined)
  })

  it('the schema catches a broken copy: a misspelt completion mode, a count as a string', () => {
    const misspelt = clone(job)
    misspelt.spec.completionMode = 'Indexd'
    expect(kubernetesProblem(misspelt)).toMatch(/completionMode must be equal to one of the allowed values/)
    const text = clone(job)
    text.spec.completions = '3'
    expect(kubernetesProblem(text)).toMatch(/completions must be integer/)
  })

  it("each pod's JOB_COMPLETION_INDEX with the manifest's SEQK_SHARD_COUNT is its shard, and the merge joins them all", () => {
    expect(job.spec.completionMode).toBe('Indexed')
    const container = job.spec.template.spec.containers[0]
    const env = envOf(container)
    // Kubernetes passes the index, not the count: the manifest must say spec.completions again.
    expect(Number(env.SEQK_SHARD_COUNT)).toBe(job.spec.completions)
    const shardsSeen = Array.from({ length: job.spec.completions }, (_, i) =>
      shardFromEnv({ ...env, JOB_COMPLETION_INDEX: String(i) }),
    )
    expect(shardsSeen).toEqual(Array.from({ length: 3 }, (_, i) => ({ index: i + 1, count: 3 })))
    expect(shardSource({ ...env, JOB_COMPLETION_INDEX: '0' })!.from).toBe('JOB_COMPLETION_INDEX=0, SEQK_SHARD_COUNT=3')
    // The pods write shard-$JOB_COMPLETION_INDEX; the merge names each of them once.
    expect(container.args.join(' ')).toContain('/runs/seqk-shards/shard-$JOB_COMPLETION_INDEX')
    const command = merge!.spec.template.spec.containers[0].command.join(' ')
    expect(command).toMatch(/^npx seqk merge /)
    expect(mergedDirs(command)).toEqual([0, 1, 2])
  })

  it("the shards' cap is counted in a directory on the volume every pod and the merge mount", () => {
    const container = job.spec.template.spec.containers[0]
    const env = envOf(container)
    expect(Number(env[SHARDS_CAP_ENV.maxCostUsd])).toBeGreaterThan(0)
    const mount = container.volumeMounts[0]
    expect(env[SHARDS_SPEND_DIR_ENV]!.startsWith(`${mount.mountPath}/`)).toBe(true)
    const claim = shards.find((d) => d.kind === 'PersistentVolumeClaim')!
    expect(claim.spec.accessModes).toEqual(['ReadWriteMany'])
    const volume = job.spec.template.spec.volumes.find((v: { name: string }) => v.name === mount.name)
    expect(volume.persistentVolumeClaim.claimName).toBe(claim.metadata.name)
    expect(merge!.spec.template.spec.volumes[0].persistentVolumeClaim.claimName).toBe(claim.metadata.name)
  })
})

describe('examples/cloud-run: a job of three tasks and a merge job', () => {
  const [shards] = yamlDocs('examples/cloud-run/shards.yaml')
  const [merge] = yamlDocs('examples/cloud-run/merge.yaml')

  it('both validate against the Cloud Run v1 Job subset, which catches a broken copy', () => {
    expect(problem(cloudRunSchema, shards)).toBe(undefined)
    expect(problem(cloudRunSchema, merge)).toBe(undefined)
    const typo = clone(shards!)
    typo.spec.template.spec.taskCont = 3
    expect(problem(cloudRunSchema, typo)).toMatch(/must NOT have additional properties/)
    const timeout = clone(shards!)
    timeout.spec.template.spec.template.spec.timeoutSeconds = 21600
    expect(problem(cloudRunSchema, timeout)).toMatch(/timeoutSeconds must be string/)
  })

  it("each task's CLOUD_RUN_TASK_INDEX and CLOUD_RUN_TASK_COUNT (set by Cloud Run) is its shard; the merge joins them all", () => {
    const count = shards!.spec.template.spec.taskCount
    expect(count).toBe(3)
    const container = shards!.spec.template.spec.template.spec.containers[0]
    const env = envOf(container)
    const seen = Array.from({ length: count }, (_, i) =>
      shardFromEnv({ ...env, CLOUD_RUN_TASK_INDEX: String(i), CLOUD_RUN_TASK_COUNT: String(count) }),
    )
    expect(seen).toEqual(Array.from({ length: 3 }, (_, i) => ({ index: i + 1, count: 3 })))
    expect(container.args.join(' ')).toContain('shard-$CLOUD_RUN_TASK_INDEX')
    expect(mergedDirs(merge!.spec.template.spec.template.spec.containers[0].args.join(' '))).toEqual([0, 1, 2])
    expect(env[SHARDS_SPEND_DIR_ENV]!.startsWith(`${container.volumeMounts[0].mountPath}/`)).toBe(true)
  })
})

describe('examples/aws-batch: a job definition, an array job of three and a merge job', () => {
  const definition = json('examples/aws-batch/job-definition.json')
  const shards = json('examples/aws-batch/submit-shards.json')
  const merge = json('examples/aws-batch/submit-merge.json')

  it('each validates against the AWS Batch request subset, which catches a broken copy', () => {
    expect(problem(awsSchema('RegisterJobDefinition'), definition)).toBe(undefined)
    expect(problem(awsSchema('SubmitJob'), shards)).toBe(undefined)
    expect(problem(awsSchema('SubmitJob'), merge)).toBe(undefined)
    const single = clone(shards)
    single.arrayProperties.size = 1
    expect(problem(awsSchema('SubmitJob'), single)).toMatch(/size must be >= 2/)
    const reserved = clone(definition)
    reserved.containerProperties.environment.push({ name: 'AWS_BATCH_JOB_ARRAY_SIZE', value: '3' })
    expect(problem(awsSchema('RegisterJobDefinition'), reserved)).toMatch(/must NOT be valid/)
  })

  it("each child's AWS_BATCH_JOB_ARRAY_INDEX and AWS_BATCH_JOB_ARRAY_SIZE (set by AWS Batch) is its shard; the merge joins them all", () => {
    const size = shards.arrayProperties.size
    const env = Object.fromEntries(
      [...definition.containerProperties.environment, ...shards.containerOverrides.environment].map(
        (e: { name: string; value: string }) => [e.name, e.value],
      ),
    )
    const seen = Array.from({ length: size }, (_, i) =>
      shardFromEnv({ ...env, AWS_BATCH_JOB_ARRAY_INDEX: String(i), AWS_BATCH_JOB_ARRAY_SIZE: String(size) }),
    )
    expect(seen).toEqual(Array.from({ length: 3 }, (_, i) => ({ index: i + 1, count: 3 })))
    expect(definition.containerProperties.command.join(' ')).toContain('shard-$AWS_BATCH_JOB_ARRAY_INDEX')
    expect(mergedDirs(merge.containerOverrides.command.join(' '))).toEqual([0, 1, 2])
    expect(
      env[SHARDS_SPEND_DIR_ENV]!.startsWith(`${definition.containerProperties.mountPoints[0].containerPath}/`),
    ).toBe(true)
  })
})
