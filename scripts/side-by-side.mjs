// Runs the npm scripts named on the command line side by side, prints each one's output as one block
// when it ends, and exits 1 when any of them failed. `npm test` runs its checks this way (lint, the
// two type checks, the Python checks): each is single-threaded, so together on 2 cores they take
// about the longest one's time instead of the sum.
//
//   node scripts/side-by-side.mjs lint typecheck test:python
import { spawn } from 'node:child_process'

const names = process.argv.slice(2)
if (names.length === 0) {
  console.error('usage: node scripts/side-by-side.mjs <npm script>...')
  process.exit(2)
}

const run = (name) =>
  new Promise((resolve) => {
    const started = Date.now()
    const child = spawn('npm', ['run', '--silent', name], { stdio: ['ignore', 'pipe', 'pipe'] })
    let out = ''
    child.stdout.on('data', (chunk) => (out += chunk))
    child.stderr.on('data', (chunk) => (out += chunk))
    let ended = false
    const end = (ok, how) => {
      if (ended) return
      ended = true
      const seconds = ((Date.now() - started) / 1000).toFixed(1)
      process.stdout.write(`> npm run ${name}: ${how} (${seconds} s)\n${out}${out.endsWith('\n') || !out ? '' : '\n'}`)
      resolve(ok)
    }
    child.on('error', (error) => end(false, `could not start: ${error.message}`))
    child.on('close', (code, signal) => end(code === 0, code === 0 ? 'ok' : `failed (${signal ?? `exit ${code}`})`))
  })

const results = await Promise.all(names.map(run))
process.exitCode = results.every(Boolean) ? 0 : 1
