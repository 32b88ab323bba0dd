/**
 * `seqk view [runs dir] [--port <n>]`: serves the newest run on 127.0.0.1 and updates the page
 * while the run writes (server-sent events as its files grow), then links its report. Runs until
 * SIGINT or SIGTERM.
 */
import { existsSync } from 'node:fs'
import { resolve } from 'node:path'
import { DEFAULT_RUNS_DIR } from '../artifacts/run-dir.js'
import { startLiveServer, type LiveServer } from '../report/live/server.js'
import type { CommandSpec, FlagValues } from './args.js'
import { wrapText } from '../core/text-layout.js'
import { UsageError } from './args.js'
import type { CliIo } from './run.js'

/** The port `seqk view` listens on unless told otherwise. */
export const DEFAULT_VIEW_PORT = 4180

export const viewSpec: CommandSpec = {
  name: 'view',
  usage: 'seqk view [runs dir | run dir] [options]',
  summary:
    'Watch a run live in the browser: serves the newest run on 127.0.0.1 (progress per cell, errors as they happen, trajectories as they finish) and its report once it ends.',
  details: [
    'The runs directory is .seqk/runs by default (or SEQK_OUTPUT_DIR); it need not exist yet. The',
    'newest run is the run directory written to last; when a new run directory appears, the page',
    'switches to it. A run directory given instead is followed alone. The page updates as',
    'cells.jsonl and trajectories.jsonl grow (fs.watch, and polling where that misses changes);',
    'once summary.json exists it says the run ended, and links report.html at /report.',
    '',
    'Only this machine can connect: the server listens on 127.0.0.1, answers only Host',
    'localhost or 127.0.0.1, and serves /, /events, /trajectories and /report (anything else is',
    "404). The page is rendered with the run's state at request time, then follows /events; a big",
    "run's trajectories are paged on demand (/trajectories). Ctrl-C (SIGINT) or SIGTERM stops it.",
    '',
    'Example:  npx seqk view                 # then open http://127.0.0.1:4180/ and run npm run evals',
    '          npx seqk view .seqk/runs --port 0',
  ].join('\n'),
  flags: [
    {
      name: 'port',
      kind: 'int',
      min: 0,
      value: '<n>',
      description: `port on 127.0.0.1 (default ${DEFAULT_VIEW_PORT}; 0 picks a free one)`,
    },
    {
      name: 'poll',
      kind: 'int',
      min: 50,
      value: '<ms>',
      description: 'also check the files this often, for filesystems where change events are missed (default 500)',
    },
  ],
}

/** How often `seqk view` looks whether the process that started it is still there (ms). */
const PARENT_POLL_MS = 500

/**
 * Resolves once the process is told to stop (SIGINT, SIGTERM), or once the process that started
 * it has gone: `npx seqk view` runs the command as npm's child, and killing npx left that child
 * serving with nobody to stop it. An orphan is adopted by another process, so its parent's pid
 * changes.
 */
function stopSignal(parent = process.ppid): Promise<NodeJS.Signals | 'parent gone'> {
  return new Promise((resolvePromise) => {
    const stop = (why: NodeJS.Signals | 'parent gone') => {
      process.off('SIGINT', stop)
      process.off('SIGTERM', stop)
      clearInterval(watch)
      resolvePromise(why)
    }
    process.once('SIGINT', stop)
    process.once('SIGTERM', stop)
    const watch = setInterval(() => {
      if (process.ppid !== parent) stop('parent gone')
    }, PARENT_POLL_MS)
    watch.unref()
  })
}

/**
 * Runs `seqk view` until `stop` resolves (by default SIGINT or SIGTERM); returns its exit code.
 *
 * @example
 * await runView(['.seqk/runs'], { port: 0 }, io)
 */
export async function runView(
  paths: readonly string[],
  flags: FlagValues,
  io: CliIo,
  stop: Promise<unknown> = stopSignal(),
): Promise<number> {
  if (paths.length > 1) throw new UsageError(`seqk view: give at most one runs directory (got ${paths.length})`, 'view')
  const cwd = io.cwd ?? process.cwd()
  const target = resolve(cwd, paths[0] ?? io.env.SEQK_OUTPUT_DIR ?? DEFAULT_RUNS_DIR)
  const port = typeof flags.port === 'number' ? flags.port : DEFAULT_VIEW_PORT
  if (port > 65535) throw new UsageError(`seqk view: --port must be at most 65535 (got ${port})`, 'view')
  let server: LiveServer
  try {
    server = await startLiveServer({
      target,
      port,
      pollMs: typeof flags.poll === 'number' ? flags.poll : undefined,
      onError: (message) => io.stderr(`${wrapText(message)}\n`),
    })
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    if (code === 'EADDRINUSE')
      throw new UsageError(
        `seqk view: port ${port} on 127.0.0.1 is in use: pass another with --port <n>, or --port 0 for any free one`,
        'view',
      )
    throw error
  }
  io.stdout(
    `${wrapText(`seqk view: serving ${server.url} for ${target}${existsSync(target) ? '' : ' (not there yet: waiting for a run)'}; Ctrl-C stops`)}\n`,
  )
  const why = await stop
  await server.close()
  io.stdout(
    `seqk view: stopped${why === 'parent gone' ? ' (the process that started it, such as npx, has gone)' : ''}\n`,
  )
  return 0
}
