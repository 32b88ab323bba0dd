import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync, renameSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { z } from 'zod'
import { canonicalJson, sha256 } from '../core/fingerprint.js'
import { ChatMessageSchema, UsageSchema, type ChatModel, type ChatRequest, type ChatResponse } from './chat-model.js'
import { redactName, redactSecrets, redactUrl } from './redact.js'
import { ToolCallSchema, ToolDefinitionSchema, ToolTurnSchema, type ToolCall, type ToolTurn } from './tools.js'

/** `off`: call the model. `record`: call it and store every answer. `replay`: answer only from the cassette (a miss fails). `auto`: replay what is recorded, record what is not. */
export type CassetteMode = 'off' | 'record' | 'replay' | 'auto'

export interface CassetteOptions {
  /** Default: `SEQK_CASSETTE`, else `off`. */
  mode?: CassetteMode
  /** Where recordings live, relative to the working directory (default: `SEQK_CASSETTE_DIR`, else `cassettes`). Commit it to replay in CI. */
  dir?: string
}

/**
 * What identifies one call: the model and its decoding parameters, the full message list, the
 * role, and the attempt and repeat indexes — so repeats stay independent and a revision never
 * replays another attempt's answer. No key or header is part of it, and no credential: parameter
 * values lose theirs ({@link redactUrl}: user info, `?api-key=`, key-shaped values) and messages
 * lose every registered secret, before the key is hashed, so record and replay agree.
 */
const CassetteKeySchema = z.object({
  provider: z.string(),
  model: z.string(),
  params: z.record(z.string(), z.union([z.string(), z.number(), z.boolean(), z.null()])),
  role: z.string(),
  protocol: z.string(),
  attempt: z.number().int(),
  repeat: z.number().int(),
  /** The cell (its protocol fingerprint): cells share first-attempt messages, not answers. */
  cell: z.string().nullable().default(null),
  messages: z.array(ChatMessageSchema),
  /** An agent's step: the tools offered and the episode so far (absent for a plain call, so older keys hash as before). */
  tools: z.array(ToolDefinitionSchema).optional(),
  turns: z.array(ToolTurnSchema).optional(),
})
type CassetteKey = z.infer<typeof CassetteKeySchema>

const CassetteFileSchema = z.object({
  schema: z.literal('seqk.cassette/1'),
  key: CassetteKeySchema,
  response: z.object({
    text: z.string(),
    usage: UsageSchema.nullable(),
    latencyMs: z.number(),
    finishReason: z.enum(['stop', 'length', 'refusal', 'other']),
    costUsd: z.number().nullable(),
    costUsdWithoutCache: z.number().nullable().optional(),
    /** Sent through a batch API: replayed with its batch price and list price, as recorded. */
    batched: z.boolean().optional(),
    costUsdAtListPrice: z.number().optional(),
    /** The model the provider said served the call, replayed as recorded. */
    servedModel: z.string().optional(),
    /** The tools the model asked to call, replayed with their recorded ids. */
    toolCalls: z.array(ToolCallSchema).optional(),
  }),
  recordedAt: z.string(),
})
type CassetteFile = z.infer<typeof CassetteFileSchema>

export const CASSETTE_MODES: readonly CassetteMode[] = ['off', 'record', 'replay', 'auto']

/** The cassette mode and directory from options, then the environment. */
export function resolveCassette(options: CassetteOptions = {}): { mode: CassetteMode; dir: string } {
  const mode = options.mode ?? (process.env.SEQK_CASSETTE as CassetteMode | undefined) ?? 'off'
  if (!CASSETTE_MODES.includes(mode))
    throw new Error(
      `cassette mode ${JSON.stringify(mode)} is not one of ${CASSETTE_MODES.join(', ')} (check SEQK_CASSETTE)`,
    )
  return { mode, dir: resolve(options.dir ?? process.env.SEQK_CASSETTE_DIR ?? 'cassettes') }
}

/** Parameters as a cassette stores them: string values without credentials (a custom model may put a base URL with a key there). */
function storedParams(params: CassetteKey['params']): CassetteKey['params'] {
  let out: CassetteKey['params'] | undefined
  for (const [name, value] of Object.entries(params)) {
    if (typeof value !== 'string') continue
    const clean = redactUrl(value)
    if (clean !== value) (out ??= { ...params })[name] = clean
  }
  return out ?? params
}

function keyOf(model: ChatModel, request: ChatRequest): CassetteKey {
  const { role, protocol, attempt, repeat } = request.context
  return {
    provider: model.descriptor.provider,
    model: model.descriptor.model,
    params: storedParams(model.descriptor.params),
    role,
    protocol,
    attempt,
    repeat,
    cell: request.context.cell ?? null,
    // Only registered secrets: any other change to a prompt would change what is asked.
    messages: request.messages.map((m) => ({ role: m.role, content: redactSecrets(m.content) })),
    ...(request.tools?.length
      ? { tools: request.tools.map((t) => ({ name: t.name, description: t.description, parameters: t.parameters })) }
      : {}),
    ...(request.turns?.length ? { turns: request.turns.map(storedTurn) } : {}),
  }
}

/** A tool turn as a key stores it: without registered secrets (a tool may read one from a file). */
function storedTurn(turn: ToolTurn): z.infer<typeof ToolTurnSchema> {
  if (turn.role === 'tool')
    return {
      role: 'tool',
      callId: turn.callId,
      // A model may call a tool by a name that holds a key (an unknown tool): no credential is written.
      name: redactName(turn.name),
      content: redactSecrets(turn.content),
      isError: turn.isError,
    }
  return { role: 'assistant', text: redactSecrets(turn.text), toolCalls: turn.toolCalls.map(storedCall) }
}

const storedCall = (call: ToolCall): ToolCall => ({
  id: call.id,
  name: redactName(call.name),
  arguments: redactSecrets(call.arguments),
})

const safe = (s: string) => s.replace(/[^A-Za-z0-9._-]+/g, '_')

function shorten(text: string): string {
  const flat = text.replace(/\s+/g, ' ')
  return JSON.stringify(flat.length > 60 ? `${flat.slice(0, 57)}…` : flat)
}

/** The parts of `want` that differ from a recorded key, in words. */
export function keyDifferences(recorded: CassetteKey, want: CassetteKey): string[] {
  const out: string[] = []
  for (const field of ['role', 'protocol', 'attempt', 'repeat', 'cell'] as const) {
    if (recorded[field] !== want[field])
      out.push(`${field} (recorded ${JSON.stringify(recorded[field])}, now ${JSON.stringify(want[field])})`)
  }
  if (canonicalJson(recorded.params) !== canonicalJson(want.params))
    out.push(`decoding parameters (recorded ${canonicalJson(recorded.params)}, now ${canonicalJson(want.params)})`)
  if (canonicalJson(recorded.tools ?? []) !== canonicalJson(want.tools ?? []))
    out.push(
      `tools (recorded ${(recorded.tools ?? []).map((t) => t.name).join(', ') || 'none'}, now ${(want.tools ?? []).map((t) => t.name).join(', ') || 'none'})`,
    )
  if ((recorded.turns ?? []).length !== (want.turns ?? []).length)
    out.push(`agent steps (recorded ${(recorded.turns ?? []).length} turns, now ${(want.turns ?? []).length})`)
  else if (canonicalJson(recorded.turns ?? []) !== canonicalJson(want.turns ?? []))
    out.push('the tool turns (a tool call or result differs)')
  if (recorded.messages.length !== want.messages.length)
    out.push(`message count (recorded ${recorded.messages.length}, now ${want.messages.length})`)
  const n = Math.min(recorded.messages.length, want.messages.length)
  for (let i = 0; i < n; i++) {
    const a = recorded.messages[i]!
    const b = want.messages[i]!
    if (a.role !== b.role || a.content !== b.content) {
      out.push(`messages[${i}] (recorded ${a.role} ${shorten(a.content)}, now ${b.role} ${shorten(b.content)})`)
      break
    }
  }
  return out
}

/**
 * Wraps a model with record and replay. Replayed answers keep their recorded (nominal) tokens
 * and cost and are marked `replayed`, so comparisons stay honest and CI runs for free.
 *
 * @example
 * const actor = withCassette(actors.openai({ model: 'gpt-4.1-mini' }), { mode: 'auto', dir: 'cassettes' })
 */
export function withCassette(model: ChatModel, options: CassetteOptions = {}): ChatModel {
  const { mode, dir } = resolveCassette(options)
  if (mode === 'off') return model
  const folder = join(dir, safe(redactSecrets(model.descriptor.provider)), safe(redactSecrets(model.descriptor.model)))
  // Replaying what was never recorded fails every call: said once, where the model is declared.
  if (mode === 'replay' && !existsSync(folder))
    throw new Error(
      `${model.id}: cassette replay (SEQK_CASSETTE=replay or cassette.mode), but ${dir} holds no recording of this model (no ${folder}): record it first (SEQK_CASSETTE=record), or point SEQK_CASSETTE_DIR at the cassettes`,
    )
  const pathOf = (key: CassetteKey) => join(folder, `${sha256(canonicalJson(key)).slice(0, 24)}.json`)

  const read = (path: string): CassetteFile => {
    let json: unknown
    try {
      json = JSON.parse(readFileSync(path, 'utf8'))
    } catch (error) {
      throw new Error(
        `${path}: the cassette is not valid JSON (${(error as Error).message}); delete it and record again`,
      )
    }
    const parsed = CassetteFileSchema.safeParse(json)
    if (!parsed.success)
      throw new Error(
        `${path}: not a seqk cassette (${parsed.error.issues[0]?.path.join('.')}: ${parsed.error.issues[0]?.message}); delete it and record again`,
      )
    return parsed.data
  }

  const missMessage = (key: CassetteKey): string => {
    const where = `${model.id} (${key.role}, attempt ${key.attempt}, repeat ${key.repeat})`
    const files = existsSync(folder) ? readdirSync(folder).filter((f) => f.endsWith('.json')) : []
    if (files.length === 0)
      return `no cassette recorded for ${where}: ${folder} is empty. Record with SEQK_CASSETTE=record (or auto).`
    let best: { diffs: string[]; distance: number } | undefined
    for (const f of files) {
      const recorded = read(join(folder, f)).key
      const diffs = keyDifferences(recorded, key)
      // Of equally near recordings, the same step of the episode (as many turns) is the one to name.
      const distance = diffs.length * 2 + ((recorded.turns ?? []).length === (key.turns ?? []).length ? 0 : 1)
      if (!best || distance < best.distance) best = { diffs, distance }
    }
    return `no cassette recorded for ${where} in ${folder}; the nearest recording differs in ${best!.diffs.join('; ')}. Re-record with SEQK_CASSETTE=record (or auto).`
  }

  return {
    ...model,
    async chat(request: ChatRequest): Promise<ChatResponse> {
      const key = keyOf(model, request)
      const path = pathOf(key)
      if (mode !== 'record' && existsSync(path)) {
        const { response } = read(path)
        return {
          text: response.text,
          usage: response.usage,
          latencyMs: response.latencyMs,
          finishReason: response.finishReason,
          costUsd: response.costUsd ?? undefined,
          costUsdWithoutCache: response.costUsdWithoutCache ?? undefined,
          replayed: true,
          ...(response.batched
            ? {
                batched: true,
                ...(response.costUsdAtListPrice !== undefined
                  ? { costUsdAtListPrice: response.costUsdAtListPrice }
                  : {}),
              }
            : {}),
          ...(response.servedModel ? { servedModel: redactName(response.servedModel) } : {}),
          ...(response.toolCalls?.length ? { toolCalls: response.toolCalls } : {}),
        }
      }
      if (mode === 'replay') throw new Error(missMessage(key))
      const live = await model.chat(request)
      // A configured key the provider echoed into the answer (a debugging gateway, an echo model) is
      // not written to disk, and the run sees the answer the replay will give. Only registered
      // secrets: a key-shaped pattern would rewrite ordinary answers and change their verdicts.
      const text = redactSecrets(live.text)
      const response = text === live.text ? live : { ...live, text }
      const toolCalls = response.toolCalls?.map(storedCall)
      const file: CassetteFile = {
        schema: 'seqk.cassette/1',
        key,
        response: {
          text: response.text,
          usage: response.usage,
          latencyMs: response.latencyMs,
          finishReason: response.finishReason,
          costUsd: response.costUsd ?? null,
          costUsdWithoutCache: response.costUsdWithoutCache ?? null,
          ...(response.batched
            ? {
                batched: true,
                ...(response.costUsdAtListPrice !== undefined
                  ? { costUsdAtListPrice: response.costUsdAtListPrice }
                  : {}),
              }
            : {}),
          ...(response.servedModel ? { servedModel: redactName(response.servedModel) } : {}),
          ...(toolCalls?.length ? { toolCalls } : {}),
        },
        recordedAt: new Date().toISOString(),
      }
      mkdirSync(folder, { recursive: true })
      const tmp = `${path}.${process.pid}.tmp`
      writeFileSync(tmp, `${JSON.stringify(file, null, 2)}\n`)
      renameSync(tmp, path)
      return response
    },
  }
}
