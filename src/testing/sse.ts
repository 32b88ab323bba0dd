// Server-sent events as the providers send them: `event: <name>` (Responses, Messages) and
// `data: <json>` lines, each event ended by a blank line.
import type { ServerResponse } from 'node:http'
import { setImmediate as nextTurn } from 'node:timers/promises'

/** One server-sent event. `data` is sent as is (already JSON, `[DONE]`, or deliberately broken). */
export interface SseEvent {
  event?: string
  data: string
  /** Marks a text delta: `stream-cut` sends the events up to and including the first one. */
  delta?: boolean
}

/** A JSON event, named after its `type` when `named` (the Responses and Messages wires name every event). */
export function jsonEvent(
  data: { type?: string } & Record<string, unknown>,
  options: { named?: boolean; delta?: boolean } = {},
): SseEvent {
  return { event: options.named ? data.type : undefined, data: JSON.stringify(data), delta: options.delta }
}

/** The wire text of one event. */
export function formatSse(event: SseEvent): string {
  const lines = event.event === undefined ? [] : [`event: ${event.event}`]
  for (const line of event.data.split('\n')) lines.push(`data: ${line}`)
  return `${lines.join('\n')}\n\n`
}

export const SSE_HEADERS = {
  'content-type': 'text/event-stream; charset=utf-8',
  'cache-control': 'no-cache',
  connection: 'keep-alive',
} as const

/**
 * Writes `events` one per event-loop turn (so a client sees them arrive as a stream and can
 * abort in between). With `cutAfter`, writes that many events, waits until they are flushed and
 * destroys the socket instead of ending the response. Stops quietly when `signal` aborts.
 */
export async function writeSse(
  res: ServerResponse,
  events: readonly SseEvent[],
  signal: AbortSignal,
  cutAfter?: number,
): Promise<void> {
  const count = cutAfter === undefined ? events.length : Math.min(cutAfter, events.length)
  for (let i = 0; i < count; i++) {
    if (signal.aborted || res.destroyed) return
    const chunk = formatSse(events[i]!)
    if (cutAfter !== undefined && i === count - 1) {
      await new Promise<void>((resolve) => res.write(chunk, () => resolve()))
    } else if (!res.write(chunk)) {
      await new Promise<void>((resolve) => {
        const done = () => (res.off('drain', done), res.off('close', done), resolve())
        res.on('drain', done).on('close', done)
      })
    }
    await nextTurn()
  }
  if (cutAfter !== undefined) res.socket?.destroy()
  else if (!res.destroyed) res.end()
}
