// Child process of test/merge-scale.bench.ts: runs one procedure on the shards given and prints
// its wall time and the process's peak resident memory, so each figure is one process's own.
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { runCli } from '../src/cli/run.js'
import { readTrajectories } from '../src/artifacts/trajectories-file.js'

const [procedure, out, ...dirs] = process.argv.slice(2)
const started = performance.now()
if (procedure === 'parse') {
  // The floor of any merge: every line of every shard parsed once, nothing kept.
  let parsed = 0
  for (const dir of dirs) {
    for (const line of readFileSync(join(dir!, 'trajectories.jsonl'), 'utf8').split('\n'))
      if (line && JSON.parse(line)) parsed++
  }
  if (parsed === 0) throw new Error('no trajectories')
} else if (procedure === 'whole') {
  // Holding every trajectory whole, as a merge that does not stream would.
  const held = dirs.map((dir) => readTrajectories(join(dir!, 'trajectories.jsonl')).trajectories)
  if (held.flat().length === 0) throw new Error('no trajectories')
} else {
  const code = await runCli(['merge', ...dirs, '--out', out!, '--no-report', '--no-history'], {
    stdout: () => {},
    stderr: (t) => process.stderr.write(t),
    isTTY: false,
    env: {},
  })
  if (code !== 0) throw new Error(`seqk merge exited ${code}`)
}
process.stdout.write(
  `${JSON.stringify({ ms: performance.now() - started, maxRssMb: process.resourceUsage().maxRSS / 1024 })}\n`,
)
