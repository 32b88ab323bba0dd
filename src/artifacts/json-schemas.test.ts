import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { jsonSchemaFiles } from './json-schemas.js'

describe('schemas/*.schema.json', () => {
  it('match the zod schemas (run `npm run schemas` after changing src/core/schemas.ts)', () => {
    for (const [name, schema] of Object.entries(jsonSchemaFiles())) {
      const committed = JSON.parse(readFileSync(new URL(`../../schemas/${name}`, import.meta.url), 'utf8'))
      expect(committed, name).toEqual(schema)
    }
  })

  it('describe the trajectory fields a reader needs', () => {
    const trajectory = jsonSchemaFiles()['trajectory.schema.json'] as {
      properties: Record<string, unknown>
      required: string[]
    }
    expect(trajectory.required).toEqual(
      expect.arrayContaining(['protocol', 'fingerprint', 'attempts', 'status', 'firstSuccess']),
    )
  })
})
