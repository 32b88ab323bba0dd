// The published schemas the exports are validated against, kept as fixtures with their source
// and revision (test/fixtures/*/SOURCE.md): inspect_ai's EvalLog (JSON Schema 2020-12, checked
// with ajv) and the Ant JUnit XSD (checked with xmllint from libxml2-utils).
import { spawn } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js'
import addFormatsImport from 'ajv-formats'

const fixtures = new URL('./fixtures/', import.meta.url).pathname
export const INSPECT_OPENAPI = join(fixtures, 'inspect-ai/inspect-openapi.json')
export const JUNIT_XSD = join(fixtures, 'junit/JUnit.xsd')

let evalLog: ValidateFunction | undefined

/**
 * inspect_ai's EvalLog schema: the OpenAPI document's `components.schemas` read as `$defs`, its
 * `#/components/schemas/` references pointed there (no constraint changes), compiled once.
 */
export function evalLogValidator(): ValidateFunction {
  if (evalLog) return evalLog
  const doc = JSON.parse(readFileSync(INSPECT_OPENAPI, 'utf8')) as { components: { schemas: Record<string, unknown> } }
  const defs = JSON.parse(
    JSON.stringify(doc.components.schemas).replaceAll('"#/components/schemas/', '"#/$defs/'),
  ) as Record<string, unknown>
  // OpenAPI's `discriminator` is an annotation for code generators; JSON Schema validation ignores it (strict: false).
  const ajv = new Ajv2020({ strict: false, allErrors: true })
  const addFormats = addFormatsImport as unknown as (a: Ajv2020) => Ajv2020
  addFormats(ajv)
  evalLog = ajv.compile({
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    $defs: defs,
    $ref: '#/$defs/EvalLog',
  })
  return evalLog
}

/** The validator's errors, one line each (path and message), for an assertion's message. */
export function schemaErrors(errors: ErrorObject[] | null | undefined): string {
  return (errors ?? [])
    .slice(0, 20)
    .map((e) => `${e.instancePath || '(root)'} ${e.message ?? ''} ${JSON.stringify(e.params)}`)
    .join('\n')
}

/** Whether xmllint is installed (Debian: libxml2-utils; .ci/run installs it). */
export const HAS_XMLLINT = ['/usr/bin/xmllint', '/usr/local/bin/xmllint'].some((p) => existsSync(p))

/** Validates an XML document against the JUnit XSD with xmllint: its exit code and what it said. */
export async function xmllintJunit(xml: string): Promise<{ valid: boolean; output: string }> {
  const dir = mkdtempSync(join(tmpdir(), 'seqk-junit-'))
  const file = join(dir, 'junit.xml')
  writeFileSync(file, xml)
  try {
    const child = spawn('xmllint', ['--noout', '--schema', JUNIT_XSD, file], { stdio: ['ignore', 'pipe', 'pipe'] })
    let output = ''
    child.stdout.on('data', (d: Buffer) => (output += d.toString()))
    child.stderr.on('data', (d: Buffer) => (output += d.toString()))
    const timer = setTimeout(() => child.kill('SIGKILL'), 30_000)
    const status = await new Promise<number | null>((done) => child.on('close', done))
    clearTimeout(timer)
    return { valid: status === 0, output }
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}
