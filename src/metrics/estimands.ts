/**
 * What an interval is an interval for, said once for the table, the report and the docs: a rate's
 * interval and a difference's answer different questions, and a reader who takes one for the other
 * reads a gate's verdict wrong.
 */

/**
 * A rate's interval (Seq@k, Pass@k): a confidence interval for the rate of the population of tasks
 * the benchmark's tasks were drawn from, each task at its expected rate over repeats: it holds that
 * rate in at least 95 of 100 benchmarks. Not a prediction interval: another draw of as many tasks
 * lands in it less often (73–90% measured, test/statistics-promises.test.ts).
 */
export const RATE_ESTIMAND =
  "the rate over tasks like these (the benchmark read as a sample of the tasks it was drawn from, a task's repeats kept together)"

/**
 * A paired difference's interval (the baseline gate, history comparisons): for the change on these
 * very tasks, the mean of each task's change in success rate. A change that breaks 2% of all tasks
 * may break none of these: the gate asks about the benchmark it runs, not about tasks like it.
 */
export const DIFFERENCE_ESTIMAND =
  "the change on these very tasks (the mean of each task's change), not on tasks like them"

/**
 * The legend line under a table of rates with intervals at K, short enough for one terminal line.
 *
 * @example
 * intervalLegend(5)
 * // => "95% CI @5: for tasks like these, repeats kept with their task; a baseline's difference: for these very tasks"
 */
export function intervalLegend(K: number): string {
  return `95% CI @${K}: for tasks like these, repeats kept with their task; a baseline's difference: for these very tasks`
}
