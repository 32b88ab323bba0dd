/**
 * A tool an agent may call: a plain async function with a schema. The schema is what the model
 * is offered and what every call's arguments are checked against before the function runs; a
 * call that fails the check never reaches it, and the model reads why.
 */
import { z } from 'zod'
import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js'
import { TOOL_NAME, toolParameters, type ToolDefinition } from '../models/tools.js'
import type { Workspace } from './workspace.js'

/** What a tool's function is handed besides its arguments: where it runs, and a signal to stop. */
export interface ToolContext {
  /** Aborted when the agent's wall time or the tool's timeout passes, or the test is cancelled. */
  signal: AbortSignal
  taskId: string
  attempt: number
  repeat: number
  /** The attempt's workspace, when the agent has one (`actors.agent({ workspace })`). */
  workspace?: Workspace
}

/** The options of {@link tool}. */
export interface ToolOptions<Args> {
  /** 1 to 64 letters, digits, `_` or `-`. */
  name: string
  /** What the tool does, for the model. */
  description: string
  /** The arguments: a zod schema (then `run` gets its parsed output) or a JSON Schema object. */
  parameters: z.ZodType<Args> | Record<string, unknown>
  /** Runs the call. A string goes back to the model as it is, anything else as JSON; a throw goes back as the call's error. */
  run(args: Args, context: ToolContext): unknown
}

/** A tool as an agent holds it: its definition, its argument check, and its function. */
export interface AgentTool {
  definition: ToolDefinition
  /** The arguments the function gets, or what is wrong with them (for the model to read). */
  check(args: unknown): { ok: true; value: unknown } | { ok: false; problems: string }
  run(args: unknown, context: ToolContext): unknown
}

const ajv = new Ajv2020({ allErrors: true, strict: false })

function ajvProblems(errors: readonly ErrorObject[] | null | undefined): string {
  return (errors ?? []).map((e) => `${e.instancePath || '(arguments)'} ${e.message ?? 'is invalid'}`).join('; ')
}

/**
 * A tool for `actors.agent`: a name, a description, a schema for its arguments and the function
 * that runs a call.
 *
 * @example
 * const add = tool({
 *   name: 'add',
 *   description: 'Adds two numbers.',
 *   parameters: z.object({ a: z.number(), b: z.number() }),
 *   run: ({ a, b }) => String(a + b),
 * })
 */
export function tool<Args>(options: ToolOptions<Args>): AgentTool {
  const where = `tool(${JSON.stringify(options?.name)})`
  if (typeof options?.name !== 'string' || !TOOL_NAME.test(options.name))
    throw new TypeError(`${where}: name must be 1 to 64 letters, digits, _ or - (every provider's rule)`)
  if (typeof options.description !== 'string' || options.description.trim() === '')
    throw new TypeError(`${where}: description must say what the tool does, for the model`)
  if (typeof options.run !== 'function')
    throw new TypeError(`${where}: run must be a function (args, context) => result`)
  const { parameters } = options
  if (parameters === null || typeof parameters !== 'object' || Array.isArray(parameters))
    throw new TypeError(`${where}: parameters must be a zod schema or a JSON Schema object`)
  const definition: ToolDefinition = {
    name: options.name,
    description: options.description,
    parameters: toolParameters(parameters),
  }
  let check: AgentTool['check']
  if (parameters instanceof z.ZodType) {
    check = (args) => {
      const parsed = parameters.safeParse(args)
      return parsed.success
        ? { ok: true, value: parsed.data }
        : {
            ok: false,
            problems: parsed.error.issues.map((i) => `${i.path.join('.') || '(arguments)'}: ${i.message}`).join('; '),
          }
    }
  } else {
    let validate: ValidateFunction
    try {
      validate = ajv.compile(parameters)
    } catch (error) {
      throw new TypeError(`${where}: parameters is not a valid JSON Schema (${(error as Error).message})`)
    }
    check = (args) =>
      validate(args) ? { ok: true, value: args } : { ok: false, problems: ajvProblems(validate.errors) }
  }
  return { definition, check, run: (args, context) => options.run(args as Args, context) }
}
