// Shared by the rubric tests (not shipped: the build leaves out test-helpers.ts). A scripted in-process
// chat model: records every request, answers with `reply`.
import type { ChatModel, ChatRequest, ChatResponse } from '../../models/chat-model.js'

export interface FakeModel extends ChatModel {
  requests: ChatRequest[]
}

export function fakeModel(
  reply: (request: ChatRequest, index: number) => string | Promise<string>,
  options: { id?: string; model?: string; params?: ChatModel['descriptor']['params']; costUsd?: number } = {},
): FakeModel {
  const requests: ChatRequest[] = []
  return {
    id: options.id ?? 'fake',
    descriptor: {
      provider: 'fake',
      model: options.model ?? 'fake-grader',
      params: options.params ?? { temperature: 0 },
    },
    requests,
    async chat(request): Promise<ChatResponse> {
      const index = requests.length
      requests.push(request)
      const text = await reply(request, index)
      return {
        text,
        usage: { inputTokens: 100, outputTokens: 10, cacheReadTokens: 0, cacheWriteTokens: 0 },
        latencyMs: 1,
        finishReason: 'stop',
        costUsd: options.costUsd ?? 0.001,
      }
    },
  }
}

/** The criterion ids a grader request asks about, in order. */
export function askedIds(request: ChatRequest): string[] {
  const user = request.messages.find((m) => m.role === 'user')!.content
  return [...user.matchAll(/<criterion id="([^"]+)"/g)].map((m) => m[1]!)
}
