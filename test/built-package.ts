// The built package (dist/) for benches that measure what users run: Vitest loads an installed
// dependency natively (vitest.config.ts externalizes dist/), while src/ goes through Vite's
// transform, whose import rewriting costs every call across modules. A missing or stale build is
// an error, never a silent measurement of old code (`npm run bench` builds first).
import { readdirSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

/** The most recently modified TypeScript source the build compiles under `dir` (not tests, benches or test helpers). */
function newestSource(dir: string): { path: string; mtimeMs: number } {
  let newest = { path: dir, mtimeMs: 0 }
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name)
    const candidate = entry.isDirectory()
      ? newestSource(path)
      : entry.name.endsWith('.ts') && !/\.(test|bench)\.ts$|^test-helpers\.ts$/.test(entry.name)
        ? { path, mtimeMs: statSync(path).mtimeMs }
        : undefined
    if (candidate && candidate.mtimeMs > newest.mtimeMs) newest = candidate
  }
  return newest
}

/** A module of the built package, after checking the build is there and newer than every source. */
export async function built<T>(module: string): Promise<T> {
  const entry = new URL(`../dist/${module}`, import.meta.url)
  let builtAt = 0
  try {
    builtAt = statSync(entry).mtimeMs
  } catch {
    // No build: reported below.
  }
  const newest = newestSource(fileURLToPath(new URL('../src', import.meta.url)))
  if (builtAt < newest.mtimeMs) {
    const why = builtAt === 0 ? 'is missing' : `is older than ${newest.path}`
    throw new Error(
      `dist/${module} ${why}: run \`npm run build\` (\`npm run bench\` builds first) so the bench measures the current code.`,
    )
  }
  return (await import(entry.href)) as T
}
