/**
 * Fault recovery of an agent cell (`actors.agent({ faults })`): of the episodes in which the
 * injector hit at least one tool call, the share whose attempt still passed, with a 95% interval
 * clustered by task (a task's episodes are alike: `metrics/pooled-share.ts`) and the counts it
 * rests on; beside it the same share for the cell's episodes that no fault hit, so a reader sees
 * what the faults cost. Pure: a function of the cell's trajectories.
 */
import type { FaultRecovery, Trajectory } from '../core/schemas.js'
import { TOOL_FAULT_KINDS } from '../core/episode.js'
import { POOLED_SHARE_INTERVAL_METHOD, pooledShareInterval } from '../metrics/pooled-share.js'
import { finiteOrNull } from './interval-json.js'

/**
 * The cell's fault recovery, or undefined when no episode of it had a fault injector (no call
 * recorded a fault and the actor sets no `faults.*`).
 *
 * @example
 * faultRecoveryOf(trajectories, true)?.recovery // => { point: 0.6, lo: 0.41, hi: 0.77 }
 */
export function faultRecoveryOf(trajectories: readonly Trajectory[], injecting: boolean): FaultRecovery | undefined {
  const injected = Object.fromEntries(TOOL_FAULT_KINDS.map((k) => [k, 0])) as FaultRecovery['injected']
  const hit = new Map<string, { hits: number; trials: number }>()
  const clean = new Map<string, { hits: number; trials: number }>()
  let any = false
  for (const t of trajectories) {
    // An errored or capped trajectory's last attempt has no verdict of its own to count.
    for (const a of t.attempts) {
      if (!a.episode) continue
      const faults = a.episode.turns.flatMap((turn) => turn.toolCalls.flatMap((c) => (c.fault ? [c.fault] : [])))
      for (const f of faults) injected[f]++
      any ||= faults.length > 0
      const into = faults.length > 0 ? hit : clean
      const c = into.get(t.taskId) ?? { hits: 0, trials: 0 }
      c.trials++
      if (a.verdict.pass) c.hits++
      into.set(t.taskId, c)
    }
  }
  if (!injecting && !any) return undefined
  const share = (m: Map<string, { hits: number; trials: number }>) => {
    const clusters = [...m.values()]
    const trials = clusters.reduce((n, c) => n + c.trials, 0)
    const hits = clusters.reduce((n, c) => n + c.hits, 0)
    if (trials === 0) return { episodes: 0, passed: 0, tasks: 0, rate: null }
    const i = pooledShareInterval(clusters)
    return {
      episodes: trials,
      passed: hits,
      tasks: clusters.length,
      rate: { point: hits / trials, lo: finiteOrNull(i.lo), hi: finiteOrNull(i.hi) },
    }
  }
  return { injected, hit: share(hit), clean: share(clean), method: POOLED_SHARE_INTERVAL_METHOD }
}
