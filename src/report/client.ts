/**
 * The browser scripts as strings the pages inline: the report's viewer (`html.ts`) and the live
 * view's page (`live/page.ts`). Their sources are TypeScript in `client/` (browser code,
 * type-checked with the DOM library); from the sources each is bundled here with esbuild on first
 * use. The published package never runs this file: `scripts/build.mjs` replaces its compiled
 * output in dist/ with a module returning the prebuilt strings, so the package needs no esbuild at
 * run time.
 */
import { buildSync } from 'esbuild'
import { dirname } from 'node:path'
import { fileURLToPath } from 'node:url'

const VIEWER = fileURLToPath(new URL('./client/viewer.ts', import.meta.url))
const LIVE = fileURLToPath(new URL('./client/live.ts', import.meta.url))
const scripts = new Map<string, string>()

/**
 * The viewer script, one self-contained IIFE for a classic `<script>` element.
 *
 * @example
 * const html = `<script>${clientScript()}</script>`
 */
export function clientScript(): string {
  return bundled(VIEWER)
}

/**
 * The live view's script (`seqk view`), one self-contained IIFE for a classic `<script>` element.
 *
 * @example
 * const html = `<script>${liveScript()}</script>`
 */
export function liveScript(): string {
  return bundled(LIVE)
}

function bundled(entry: string): string {
  let script = scripts.get(entry)
  if (script === undefined) {
    script = bundle(entry)
    scripts.set(entry, script)
  }
  return script
}

function bundle(entry: string): string {
  const result = buildSync({
    entryPoints: [entry],
    tsconfig: fileURLToPath(new URL('./client/tsconfig.json', import.meta.url)),
    // Paths in the output's file comments are relative to this: the same script from any cwd.
    absWorkingDir: dirname(entry),
    bundle: true,
    format: 'iife',
    platform: 'browser',
    // What the page's readers run; also keeps esbuild from adding down-levelling helpers.
    target: 'es2022',
    // keepNames would inject `__name` helpers into the page.
    keepNames: false,
    legalComments: 'none',
    charset: 'ascii',
    write: false,
    logLevel: 'silent',
  })
  return result.outputFiles[0]!.text
}
