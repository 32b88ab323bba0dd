// Writes schemas/*.schema.json from the zod schemas: JSON Schema is generated, never hand-written.
import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { jsonSchemaFiles } from '../src/artifacts/json-schemas.js'

const out = new URL('../schemas/', import.meta.url).pathname
mkdirSync(out, { recursive: true })
const files = jsonSchemaFiles()
for (const [name, schema] of Object.entries(files))
  writeFileSync(join(out, name), `${JSON.stringify(schema, null, 2)}\n`)
console.log(`wrote ${Object.keys(files).length} JSON Schema files to schemas/`)
