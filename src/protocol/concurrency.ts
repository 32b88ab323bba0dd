/**
 * `fn` over `items` with at most `limit` calls in flight; results in input order. The first
 * rejection rejects the whole map and no new item starts after it: a failed cell must not keep
 * spending model calls in the background.
 *
 * @example
 * const verdicts = await mapConcurrent(tasks, 4, (task) => verifier.verify(task, answers[task.id]))
 */
export async function mapConcurrent<T, R>(
  items: readonly T[],
  limit: number,
  fn: (item: T, index: number) => R | PromiseLike<R>,
): Promise<R[]> {
  const results = new Array<R>(items.length)
  let next = 0
  let failed = false
  const worker = async (): Promise<void> => {
    while (!failed && next < items.length) {
      const index = next++
      try {
        results[index] = await fn(items[index] as T, index)
      } catch (error) {
        failed = true
        throw error
      }
    }
  }
  await Promise.all(Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, worker))
  return results
}
