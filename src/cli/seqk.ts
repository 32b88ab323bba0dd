#!/usr/bin/env node
// The `seqk` command (package.json "bin"). Runs from source (`npx tsx src/cli/seqk.ts …`) and
// compiled (`node dist/cli/seqk.js …`); everything but process wiring lives in run.ts.
import { runCli } from './run.js'

// A reader that stops early (`seqk analyze … | head`) closes the pipe: the rest of the output has
// nowhere to go, but the command still finishes its work (a --json or --out file), as Unix tools do.
let stdoutClosed = false
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code !== 'EPIPE') throw error
  stdoutClosed = true
})

process.exitCode = await runCli(process.argv.slice(2), {
  stdout: (text) => void (stdoutClosed || process.stdout.write(text)),
  stderr: (text) => process.stderr.write(text),
  isTTY: process.stdout.isTTY === true,
  env: process.env,
})
