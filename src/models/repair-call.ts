/**
 * A model call whose answer must parse (a grader's verdicts, an annotator's JSON): one call, and
 * on a reply that does not parse one repair call that shows the model its reply and the problem.
 * A second bad reply gives up with the caller's error. Every call made is kept, on the result or
 * on the error (`withSpentCalls`), so the spend is counted whatever happens; an abort is passed on
 * as it is.
 */
import {
  checkChatResponse,
  recordCall,
  withSpentCalls,
  type CallContext,
  type ChatMessage,
  type ChatModel,
  type ChatResponse,
  type ModelCall,
  type ModelRole,
} from './chat-model.js'

/** What the repair call says when the prompt has no repair text of its own. */
export const DEFAULT_REPAIR =
  'Your previous reply could not be used: {{problem}}\nReply again with the JSON object only.'

export interface RepairCall<T> {
  model: ChatModel
  role: ModelRole
  messages: ChatMessage[]
  context: CallContext
  signal?: AbortSignal | undefined
  /** Reads the reply; throws with a message saying what is wrong. */
  parse: (text: string) => T
  /** The repair turn's text for the first reply's problem. */
  repair: (problem: string) => string
  /** The error when the repaired reply does not parse either. */
  giveUp: (problem: string, firstProblem: string, lastReply: string) => Error
}

/**
 * The parsed answer and the calls it took (one or two).
 *
 * @example
 * const { value, calls } = await callWithRepair({ model, role: 'grader', messages, context, parse: JSON.parse, repair: (p) => `Not JSON: ${p}`, giveUp: (p) => new Error(p) })
 */
export async function callWithRepair<T>(input: RepairCall<T>): Promise<{ value: T; calls: ModelCall[] }> {
  const { model, role, messages, context, signal } = input
  const calls: ModelCall[] = []
  // A malformed completion is the model's bug: a ComponentError, which fails the cell.
  const first = checkChatResponse(model, role, await model.chat({ messages, context, signal }), context)
  calls.push(recordCall(role, first))
  let problem: string
  try {
    return { value: input.parse(first.text), calls }
  } catch (error) {
    problem = (error as Error).message
  }
  let second: ChatResponse
  try {
    second = await model.chat({
      messages: [
        ...messages,
        { role: 'assistant', content: first.text },
        { role: 'user', content: input.repair(problem) },
      ],
      context,
      signal,
    })
  } catch (error) {
    // The first call was billed even though the repair failed (an abort ends the cell instead, and
    // its reason is shared: leave it alone).
    throw signal?.aborted ? error : withSpentCalls(error, calls)
  }
  second = checkChatResponse(model, role, second, context)
  calls.push(recordCall(role, second))
  try {
    return { value: input.parse(second.text), calls }
  } catch (error) {
    throw withSpentCalls(input.giveUp((error as Error).message, problem, second.text), calls)
  }
}
