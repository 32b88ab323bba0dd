// Writes schemas/*.schema.json from the zod schemas: JSON Schema is generated, never hand-written.
import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { z } from 'zod'
import { CellSummarySchema, RunSummarySchema, TrajectorySchema } from '../src/artifacts/schemas.js'

const out = new URL('../schemas/', import.meta.url).pathname
mkdirSync(out, { recursive: true })
const files = { 'trajectory.schema.json': TrajectorySchema, 'cell-summary.schema.json': CellSummarySchema, 'summary.schema.json': RunSummarySchema }
for (const [name, schema] of Object.entries(files)) {
  const json = z.toJSONSchema(schema, { target: 'draft-2020-12', unrepresentable: 'any' })
  writeFileSync(join(out, name), `${JSON.stringify(json, null, 2)}\n`)
}
console.log(`wrote ${Object.keys(files).length} JSON Schema files to schemas/`)
