#!/usr/bin/env node
// The `seqk` command (package.json "bin"). Runs from source (`npx tsx src/cli/seqk.ts …`) and
// compiled (`node dist/cli/seqk.js …`); everything but process wiring lives in run.ts.
import { runCli } from './run.js'

process.exitCode = await runCli(process.argv.slice(2), {
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
  isTTY: process.stdout.isTTY === true,
  env: process.env,
})
