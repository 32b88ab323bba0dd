/**
 * The report page's script as the string `html.ts` inlines. Its source is TypeScript in
 * `client/` (browser code, type-checked with the DOM library); from the sources it is bundled
 * here with esbuild on first use. The published package never runs this file: `scripts/build.mjs`
 * replaces its compiled output in dist/ with a module returning the prebuilt string, so the
 * package needs no esbuild at run time.
 */
import { buildSync } from 'esbuild'
import { dirname } from 'node:path'
import { fileURLToPath } from 'node:url'

const ENTRY = fileURLToPath(new URL('./client/viewer.ts', import.meta.url))
let script: string | undefined

/**
 * The viewer script, one self-contained IIFE for a classic `<script>` element.
 *
 * @example
 * const html = `<script>${clientScript()}</script>`
 */
export function clientScript(): string {
  script ??= bundle()
  return script
}

function bundle(): string {
  const result = buildSync({
    entryPoints: [ENTRY],
    tsconfig: fileURLToPath(new URL('./client/tsconfig.json', import.meta.url)),
    // Paths in the output's file comments are relative to this: the same script from any cwd.
    absWorkingDir: dirname(ENTRY),
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
