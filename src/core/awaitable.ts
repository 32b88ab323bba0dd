/**
 * A value, or a promise of it. The protocol's extension points (a verifier's `verify`, a feedback
 * mode's `render`, a history policy's `build`) may answer either way: most bundled ones have
 * nothing to wait for, and each avoided `await` is one promise and one queue turn less per
 * attempt, between model calls.
 *
 * @example
 * const terse: FeedbackMode = { kind: 'binary', name: 'terse', version: '1', settings: {}, render: () => ({ kind: 'binary', text: 'Wrong.' }) }
 */
export type Awaitable<T> = T | PromiseLike<T>

/** Whether `value` is a promise (or any thenable) to await rather than the value itself. */
export function isPromiseLike<T>(value: Awaitable<T>): value is PromiseLike<T> {
  return typeof (value as { then?: unknown } | null)?.then === 'function'
}
