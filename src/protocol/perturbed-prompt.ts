/**
 * A perturbed prompt: the prompt builder of a perturbed cell (seqEval's `perturb`). It rewords the
 * task's last user message (the task itself; a chat's system and context messages, and the eval's
 * instructions, stay) before the cell's own builder lays the prompt out, and leaves revisions as
 * they are. The wording is the subject's: its version names the perturbation, so the subject's
 * fingerprint moves while the instrument (tasks, tests, verifier, feedback, budget) stays.
 */
import { PERTURBATION_VERSION, perturbText, type PerturbationKind } from '../core/perturbation.js'
import type { PromptBuilder } from './prompt-builder.js'
import { taskMessages, type Task } from './task.js'

/** One perturbation of the prompt: its kind and seed, and its name in cell ids (`distractor/1`). */
export interface Perturbation {
  name: string
  kind: PerturbationKind
  seed: number
}

/**
 * The perturbations `perturb` plans: each kind, `seeds` times, named `<kind>/<i>`; seeds drawn from
 * the eval's seed so two rewordings of one kind differ.
 *
 * @example
 * planPerturbations(['distractor'], 2, 1).map((p) => p.name) // => ['distractor/1', 'distractor/2']
 */
export function planPerturbations(kinds: readonly PerturbationKind[], seeds: number, seed: number): Perturbation[] {
  return kinds.flatMap((kind) =>
    Array.from({ length: seeds }, (_, i) => ({ name: `${kind}/${i + 1}`, kind, seed: seed * 1000 + i + 1 })),
  )
}

/**
 * The task with its last user message reworded (a copy; the task itself is not changed).
 *
 * @example
 * perturbedTask({ id: 'a', prompt: 'Add.' }, { name: 'paraphrase/1', kind: 'paraphrase', seed: 1 }).prompt
 */
export function perturbedTask(task: Task, perturbation: Perturbation): Task {
  const messages = taskMessages(task).map((m) => ({ ...m }))
  const last = messages.findLastIndex((m) => m.role === 'user')
  if (last < 0) return task
  messages[last]!.content = perturbText(messages[last]!.content, perturbation.kind, perturbation.seed, task.id).text
  return { ...task, prompt: typeof task.prompt === 'string' ? messages[last]!.content : messages }
}

/**
 * The builder that lays out the perturbed task with `base`; its version is the base's with the
 * perturbation's kind, seed and the transforms' version.
 *
 * @example
 * perturbedPromptBuilder(defaultPromptBuilder, { name: 'format/1', kind: 'format', seed: 1001 }).version
 * // => 'seqk-prompt/1+perturb/1:format:1001'
 */
export function perturbedPromptBuilder(base: PromptBuilder, perturbation: Perturbation): PromptBuilder {
  return {
    version: `${base.version}+${PERTURBATION_VERSION}:${perturbation.kind}:${perturbation.seed}`,
    initial: (task, options) => base.initial(perturbedTask(task, perturbation), options),
    revision: (feedback, options) => base.revision(feedback, options),
  }
}
