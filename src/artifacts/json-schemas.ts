import { z } from 'zod'
import { BaselineFileSchema } from './baseline-file.js'
import { CellSummarySchema, RunSummarySchema, TrajectorySchema } from '../core/schemas.js'
import { DisclosureCardSchema } from '../core/disclosure.js'

/**
 * The JSON Schema files shipped in `schemas/`, generated from the zod schemas (never written by
 * hand): file name → schema object.
 */
export function jsonSchemaFiles(): Record<string, unknown> {
  const files = {
    'trajectory.schema.json': TrajectorySchema,
    'cell-summary.schema.json': CellSummarySchema,
    'summary.schema.json': RunSummarySchema,
    'baseline.schema.json': BaselineFileSchema,
    'disclosure.schema.json': DisclosureCardSchema,
  }
  return Object.fromEntries(
    Object.entries(files).map(([name, schema]) => [
      name,
      z.toJSONSchema(schema, { target: 'draft-2020-12', unrepresentable: 'any' }),
    ]),
  )
}
