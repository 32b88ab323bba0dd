/**
 * An agent's per-attempt workspace: a directory of its own, seeded from the task's `files`, that
 * its built-in tools read, write and list, and in which its commands run inside the Python
 * verifier's sandbox (bubblewrap: no network, no key, an unprivileged uid, resource limits and a
 * wall-clock kill). Paths are relative to the workspace; `..`, absolute paths and symlinks (a
 * command may make one pointing anywhere) are never followed on the host side. At the end of the
 * episode the workspace's files are what `verifiers.pythonTests({ workspace: true })` judges.
 */
import { execFile } from 'node:child_process'
import { chown, lstat, mkdir, mkdtemp, open, readdir } from 'node:fs/promises'
import { constants, existsSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { z } from 'zod'
import type { WorkspaceSnapshot } from '../core/episode.js'
import { describeZodError } from '../core/zod-errors.js'
import { checkNumberOptions, rejectUnknownOptions } from '../core/option-checks.js'
import { SANDBOX_GID, SANDBOX_UID } from '../verifiers/python-tests/sandbox.js'
import type { SandboxOption } from '../verifiers/python-tests/sandbox.js'
import { runSandboxedCommand } from '../verifiers/python-tests/sandboxed-command.js'
import type { SandboxedCommandResult } from '../verifiers/python-tests/sandboxed-command.js'
import { tool, type AgentTool } from './tool.js'

/**
 * The task field an agent's workspace starts from: file paths (relative, `/`-separated) and their
 * text. `protocol/task.ts` adds it to the TaskSchema users write.
 *
 * @example
 * WorkspaceTaskFieldsSchema.parse({ files: { 'calc.py': 'def add(a, b):\n    return a - b\n' } })
 */
export const WorkspaceTaskFieldsSchema = z.object({
  /** The files an agent's workspace starts with (`actors.agent({ workspace: true })`). */
  files: z.record(z.string(), z.string()).optional(),
})

/** The options of an agent's workspace (`actors.agent({ workspace: { ... } })`). */
export interface WorkspaceOptions {
  /** Wall-clock limit of one `run_command` / `run_python` in ms (default 10 000). */
  timeoutMs?: number
  /** Address-space limit per process of a command in MiB (default 1024). */
  memoryMb?: number
  /** What is kept of a command's stdout and of its stderr, in bytes (default 16 384 each). */
  maxOutputBytes?: number
  /** Most bytes `read_file` reads of one file (default 262 144). */
  maxReadBytes?: number
  /** Most bytes the workspace may hold after a command; over it the workspace is emptied and its tools fail (default 64 MiB). */
  maxBytes?: number
  /** Isolation of commands, as `verifiers.pythonTests({ sandbox })` (default `auto`: bubblewrap, or refuse to run). */
  sandbox?: SandboxOption
  /** Interpreter that starts the sandbox's launcher (default: the Python verifier's). */
  python?: string
  /**
   * Run commands with `sandbox: 'none'` although that does not contain them (see
   * {@link UNSAFE_NONE}): without it, `none` is refused. Default false.
   */
  unsafe?: boolean
}

/**
 * What `sandbox: 'none'` does not protect for an agent's commands, said when it is refused. Without
 * namespaces there is no per-command pid namespace, private `/tmp` or network namespace, and
 * nothing separates the commands of one attempt from another's but the uid they share.
 */
export const UNSAFE_NONE =
  "without namespaces an agent's commands are not contained: every command of every attempt, task and actor runs " +
  'as one shared uid with no pid namespace, so a process a command leaves running survives the episode and can ' +
  "rewrite a later attempt's workspace (of another task or actor), fill the shared process limit, and race the " +
  "host side's file tools through symlinks (reading, writing or deleting outside the workspace, as the host's " +
  "user); /tmp is the host's and persists between attempts, and the network is open"

const KNOWN = ['timeoutMs', 'memoryMb', 'maxOutputBytes', 'maxReadBytes', 'maxBytes', 'sandbox', 'python', 'unsafe']
const BOUNDS = {
  timeoutMs: { min: 1, max: 600_000, why: 'ms per command, at most 10 minutes' },
  memoryMb: { min: 64, max: 65_536, why: 'MiB per process' },
  maxOutputBytes: { min: 1, max: 16 * 1024 * 1024, integer: true, why: 'bytes kept per stream' },
  maxReadBytes: { min: 1, max: 16 * 1024 * 1024, integer: true, why: 'bytes per read' },
  maxBytes: { min: 1, max: 16 * 1024 * 1024 * 1024, integer: true, why: 'bytes in the workspace' },
}

/** The settled options of a workspace. */
export type WorkspaceSettings = Required<Omit<WorkspaceOptions, 'python'>> & { python?: string }

/** The options checked and filled in; throws naming the option and the fix. */
export function workspaceSettings(where: string, options: WorkspaceOptions | true): WorkspaceSettings {
  const given = options === true ? {} : options
  if (given === null || typeof given !== 'object')
    throw new TypeError(`${where}: workspace must be true or { timeoutMs, memoryMb, maxOutputBytes, ... }`)
  rejectUnknownOptions(`${where} workspace`, given, KNOWN)
  checkNumberOptions(`${where} workspace`, given, BOUNDS)
  const sandbox = given.sandbox ?? 'auto'
  if (!['auto', 'bwrap', 'none'].includes(sandbox))
    throw new RangeError(`${where}: workspace.sandbox must be 'auto', 'bwrap' or 'none', got ${String(sandbox)}`)
  const unsafe = given.unsafe ?? false
  if (typeof unsafe !== 'boolean')
    throw new TypeError(`${where}: workspace.unsafe must be true or false, got ${String(unsafe)}`)
  if (sandbox === 'none' && !unsafe)
    throw new RangeError(
      `${where}: workspace.sandbox 'none' is refused for an agent: ${UNSAFE_NONE}. Install bubblewrap ` +
        "(apt-get install bubblewrap) and use sandbox: 'auto', or pass workspace: { sandbox: 'none', unsafe: true } " +
        'to run the commands anyway, on a machine you can throw away',
    )
  return {
    unsafe,
    timeoutMs: given.timeoutMs ?? 10_000,
    memoryMb: given.memoryMb ?? 1024,
    maxOutputBytes: given.maxOutputBytes ?? 16_384,
    maxReadBytes: given.maxReadBytes ?? 262_144,
    maxBytes: given.maxBytes ?? 64 * 1024 * 1024,
    sandbox,
    ...(given.python !== undefined ? { python: given.python } : {}),
  }
}

/** Most bytes of files a snapshot carries to the verifier (the Python verifier's limit for code). */
export const SNAPSHOT_MAX_BYTES = 1024 * 1024
/** Most entries a listing or a snapshot walks. */
const MAX_ENTRIES = 2000
/** Deepest directory a listing or a snapshot walks: past it the tree is too deep (a host path would outgrow PATH_MAX). */
const MAX_DEPTH = 64
/** A host path longer than this is past what every walk can read (PATH_MAX is 4096 bytes with its NUL). */
const MAX_HOST_PATH = 3800
const IS_ROOT = process.getuid?.() === 0

/** A path the agent gave that does not name a place inside the workspace. */
export class WorkspacePathError extends Error {}

/**
 * The components of a relative path, or a WorkspacePathError: no absolute path, no `..`, no NUL.
 * `.` and empty components are dropped; the empty path is the workspace itself.
 */
export function pathComponents(path: unknown): string[] {
  if (typeof path !== 'string') throw new WorkspacePathError('the path must be a string')
  if (path.includes('\0')) throw new WorkspacePathError('the path contains a NUL character')
  if (path.startsWith('/') || path.startsWith('\\'))
    throw new WorkspacePathError(`${JSON.stringify(path)} is absolute; give a path relative to the workspace`)
  const parts = path.split('/').filter((p) => p !== '' && p !== '.')
  if (parts.includes('..'))
    throw new WorkspacePathError(`${JSON.stringify(path)} leaves the workspace (..); give a path inside it`)
  return parts
}

/**
 * One attempt's workspace. Operations run one at a time (a command and a read never overlap, so
 * nothing changes a path between its check and its use), and every sandboxed process has ended
 * when its command returns (it is the sandbox's pid 1: when it exits, the namespace goes).
 */
export class Workspace {
  #queue: Promise<unknown> = Promise.resolve()
  #emptied: string | undefined

  private constructor(
    readonly dir: string,
    readonly settings: WorkspaceSettings,
  ) {}

  /**
   * A fresh workspace holding `files` (the task's `files` field, checked here).
   *
   * @example
   * const ws = await Workspace.create({ 'a.py': 'x = 1\n' }, workspaceSettings('test', true))
   */
  static async create(files: unknown, settings: WorkspaceSettings): Promise<Workspace> {
    const parsed = WorkspaceTaskFieldsSchema.shape.files.safeParse(files)
    if (!parsed.success)
      throw new TypeError(
        `actors.agent workspace: the task's files ${describeZodError(parsed.error)}: give files as { 'path/name.py': 'text' }`,
      )
    const dir = await mkdtemp(join(tmpdir(), 'seqk-workspace-'))
    const workspace = new Workspace(dir, settings)
    try {
      await workspace.#own(dir)
      for (const [path, text] of Object.entries(parsed.data ?? {})) await workspace.#write(path, text)
    } catch (error) {
      await workspace.dispose()
      if (error instanceof WorkspacePathError)
        throw new TypeError(`actors.agent workspace: the task's files: ${error.message}`)
      throw error
    }
    return workspace
  }

  /** The file's text (its first `maxReadBytes`), and whether it was cut. */
  read(path: string): Promise<{ text: string; bytes: number; cut: boolean }> {
    return this.#serial(async () => {
      const parts = pathComponents(path)
      if (parts.length === 0) throw new WorkspacePathError('give the path of a file, not the workspace')
      const parent = await this.#parent(parts, false)
      const handle = await openNoFollow(join(parent, parts.at(-1)!), constants.O_RDONLY, path)
      try {
        const stat = await handle.stat()
        if (!stat.isFile()) throw new WorkspacePathError(`${JSON.stringify(path)} is not a regular file`)
        const size = Math.min(stat.size, this.settings.maxReadBytes)
        const buffer = Buffer.alloc(size)
        const { bytesRead } = await handle.read(buffer, 0, size, 0)
        return { text: buffer.subarray(0, bytesRead).toString('utf8'), bytes: stat.size, cut: stat.size > size }
      } finally {
        await handle.close()
      }
    })
  }

  /** Writes `text` to the file, making its directories. */
  write(path: string, text: string): Promise<number> {
    return this.#serial(() => this.#write(path, text))
  }

  /** The entries under `path` (default the whole workspace), one a line: `dir/`, `file (N bytes)`, `link -> target (not followed)`. */
  list(path = ''): Promise<string> {
    return this.#serial(async () => {
      const parts = pathComponents(path)
      const start = parts.length === 0 ? this.dir : join(await this.#parent(parts, false), parts.at(-1)!)
      if (parts.length > 0) {
        const stat = await lstat(start).catch(() => undefined)
        if (!stat?.isDirectory()) throw new WorkspacePathError(`${JSON.stringify(path)} is not a directory`)
      }
      const lines: string[] = []
      const cut = await walk(start, parts.join('/'), (entry) => {
        lines.push(
          entry.kind === 'dir'
            ? `${entry.path}/`
            : entry.kind === 'file'
              ? `${entry.path} (${entry.size} bytes)`
              : `${entry.path} (${entry.kind}, not followed)`,
        )
      })
      if (cut) lines.push(`(listing stopped: more than ${MAX_ENTRIES} entries or ${MAX_DEPTH} levels)`)
      return lines.length === 0 ? '(empty)' : lines.join('\n')
    })
  }

  /** Runs `argv` in the sandbox with the workspace as its working directory. */
  run(argv: readonly string[], stdin: string | undefined, signal: AbortSignal): Promise<SandboxedCommandResult> {
    return this.#serial(async () => {
      const { settings } = this
      const result = await runSandboxedCommand({
        workspace: this.dir,
        argv,
        ...(stdin !== undefined ? { stdin } : {}),
        timeoutMs: settings.timeoutMs,
        maxOutputBytes: settings.maxOutputBytes,
        memoryMb: settings.memoryMb,
        sandbox: settings.sandbox,
        ...(settings.python !== undefined ? { python: settings.python } : {}),
        signal,
      })
      // The workspace is a host directory, outside the sandbox's size-limited /tmp: its size is checked after each command.
      let bytes = 0
      // Stopped early: past the size limit, or past the entries a walk reads (a flood of small files).
      const over = await walk(this.dir, '', (entry) => {
        bytes += entry.size
        return bytes > settings.maxBytes
      })
      if (over) {
        await removeTree(this.dir)
        this.#emptied = `the workspace went over its size limit of ${settings.maxBytes} bytes, ${MAX_ENTRIES} entries or ${MAX_DEPTH} levels and was emptied`
        await mkdir(this.dir, { mode: 0o755 })
        await this.#own(this.dir)
      }
      return result
    })
  }

  /**
   * Every regular file as text, for the verifier, leaving out `__pycache__` directories;
   * `tooLarge` past {@link SNAPSHOT_MAX_BYTES} or once emptied.
   */
  snapshot(): Promise<WorkspaceSnapshot> {
    return this.#serial(async () => {
      if (this.#emptied !== undefined) return { files: {}, tooLarge: true }
      const found: { path: string; size: number }[] = []
      let bytes = 0
      const stopped = await walk(this.dir, '', (entry) => {
        // Python's bytecode cache: binary, stamped with the time it was written, and never read by the verifier (it runs with -B).
        if (entry.kind === 'dir' && entry.path.split('/').at(-1) === '__pycache__') return 'skip'
        if (entry.kind !== 'file') return false
        bytes += entry.size
        found.push(entry)
        return bytes > SNAPSHOT_MAX_BYTES
      })
      if (stopped) return { files: {}, tooLarge: true }
      const files: Record<string, string> = {}
      for (const { path } of found.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0))) {
        const parts = path.split('/')
        const handle = await openNoFollow(
          join(await this.#parent(parts, false), parts.at(-1)!),
          constants.O_RDONLY,
          path,
        )
        try {
          const stat = await handle.stat()
          if (!stat.isFile()) continue
          const buffer = Buffer.alloc(Math.min(stat.size, SNAPSHOT_MAX_BYTES))
          const { bytesRead } = await handle.read(buffer, 0, buffer.length, 0)
          files[path] = buffer.subarray(0, bytesRead).toString('utf8')
        } finally {
          await handle.close()
        }
      }
      return { files }
    }, true)
  }

  /** Removes the workspace (symlinks in it are removed, never followed), however deep or large a command made it. */
  async dispose(): Promise<void> {
    await this.#queue.catch(() => {})
    await removeTree(this.dir)
  }

  /** Runs after every operation before it; once the workspace was emptied, only a snapshot still runs. */
  #serial<T>(operation: () => Promise<T>, evenEmptied = false): Promise<T> {
    const next = this.#queue.then(() => {
      if (this.#emptied !== undefined && !evenEmptied) throw new WorkspacePathError(this.#emptied)
      return operation()
    })
    this.#queue = next.catch(() => {})
    return next
  }

  async #write(path: string, text: string): Promise<number> {
    if (typeof text !== 'string') throw new WorkspacePathError('the content must be a string')
    const parts = pathComponents(path)
    if (parts.length === 0) throw new WorkspacePathError('give the path of a file, not the workspace')
    const data = Buffer.from(text, 'utf8')
    if (data.length > SNAPSHOT_MAX_BYTES)
      throw new WorkspacePathError(`the content is ${data.length} bytes, over the limit of ${SNAPSHOT_MAX_BYTES}`)
    const parent = await this.#parent(parts, true)
    const handle = await openNoFollow(
      join(parent, parts.at(-1)!),
      constants.O_WRONLY | constants.O_CREAT | constants.O_TRUNC,
      path,
    )
    try {
      if (!(await handle.stat()).isFile()) throw new WorkspacePathError(`${JSON.stringify(path)} is not a regular file`)
      await handle.write(data, 0, data.length, 0)
      if (IS_ROOT) await handle.chown(SANDBOX_UID, SANDBOX_GID)
    } finally {
      await handle.close()
    }
    return data.length
  }

  /** The host directory holding the last component, each one above it checked to be a real directory (made when `make`). */
  async #parent(parts: readonly string[], make: boolean): Promise<string> {
    let dir = this.dir
    for (const part of parts.slice(0, -1)) {
      dir = join(dir, part)
      const stat = await lstat(dir).catch((error: NodeJS.ErrnoException) => {
        if (error.code === 'ENOENT') return undefined
        throw error
      })
      if (stat === undefined) {
        if (!make)
          throw new WorkspacePathError(`there is no directory ${JSON.stringify(parts.join('/'))} leads through`)
        await mkdir(dir, { mode: 0o755 })
        await this.#own(dir)
      } else if (stat.isSymbolicLink())
        throw new WorkspacePathError(`${JSON.stringify(part)} is a symlink, which the workspace's tools never follow`)
      else if (!stat.isDirectory()) throw new WorkspacePathError(`${JSON.stringify(part)} is not a directory`)
    }
    return dir
  }

  /** As root, the sandbox's uid owns what the host side makes, so commands can change it. */
  async #own(path: string): Promise<void> {
    if (IS_ROOT) await chown(path, SANDBOX_UID, SANDBOX_GID)
  }
}

/**
 * `rm -rf` of a workspace, after undoing a command's chmods: GNU `rm` walks relative to directory
 * descriptors, so a tree thousands of levels deep (whose paths outgrow PATH_MAX, where Node's
 * recursive removal fails with ENAMETOOLONG) goes too, and it never follows a symlink. Tried again
 * while something is left (a file still being made); throws only when the tree outlives that.
 */
export async function removeTree(path: string): Promise<void> {
  const script = 'chmod -R u+rwx -- "$0" 2>/dev/null; rm -rf -- "$0"'
  for (let attempt = 0; attempt < 5 && existsSync(path); attempt++) {
    await new Promise<void>((resolve) =>
      execFile('sh', ['-c', script, path], { timeout: 120_000, killSignal: 'SIGKILL' }, () => resolve()),
    )
  }
  if (existsSync(path)) throw new Error(`vitest-seqk workspace: could not remove ${path}`)
}

/** Opens without following a final symlink and without blocking on a FIFO; errors become path errors. */
async function openNoFollow(host: string, flags: number, path: string) {
  try {
    return await open(host, flags | constants.O_NOFOLLOW | constants.O_NONBLOCK, 0o644)
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    if (code === 'ELOOP')
      throw new WorkspacePathError(`${JSON.stringify(path)} is a symlink, which the workspace's tools never follow`)
    if (code === 'ENOENT') throw new WorkspacePathError(`there is no file ${JSON.stringify(path)}`)
    if (code === 'EISDIR') throw new WorkspacePathError(`${JSON.stringify(path)} is a directory`)
    if (code === 'ENXIO') throw new WorkspacePathError(`${JSON.stringify(path)} is not a regular file`)
    throw error
  }
}

interface Entry {
  path: string
  kind: 'file' | 'dir' | 'symlink' | 'other'
  size: number
}

/**
 * Walks the tree under `dir` depth-first in name order, never following a symlink. True when it
 * stopped early: `visit` returned true, more than {@link MAX_ENTRIES} entries were seen, or a
 * directory lies more than {@link MAX_DEPTH} levels down.
 * `visit` returning `'skip'` for a directory leaves its contents out.
 */
async function walk(dir: string, prefix: string, visit: (entry: Entry) => boolean | 'skip' | void): Promise<boolean> {
  let seen = 0
  const go = async (at: string, rel: string, depth = 1): Promise<boolean> => {
    // Too deep, or a host path near PATH_MAX (long names), whose entries the host could not read.
    if (depth > MAX_DEPTH || Buffer.byteLength(at) > MAX_HOST_PATH) return true
    // A directory a command made unreadable (mode 000) is left out, as if empty.
    const names = (await readdir(at).catch(() => [] as string[])).sort()
    for (const name of names) {
      if (++seen > MAX_ENTRIES) return true
      const path = rel === '' ? name : `${rel}/${name}`
      const stat = await lstat(join(at, name)).catch(() => undefined)
      if (!stat) continue
      const kind = stat.isSymbolicLink() ? 'symlink' : stat.isDirectory() ? 'dir' : stat.isFile() ? 'file' : 'other'
      const verdict = visit({ path, kind, size: kind === 'file' ? stat.size : 0 })
      if (verdict === true) return true
      if (kind === 'dir' && verdict !== 'skip' && (await go(join(at, name), path, depth + 1))) return true
    }
    return false
  }
  return go(dir, prefix)
}

/** What a command's result says to the model: its exit, then its output (cut where it was cut). */
export function describeRun(run: SandboxedCommandResult, settings: WorkspaceSettings): string {
  const ending = run.timedOut
    ? `timed out after ${settings.timeoutMs} ms and was killed`
    : run.outputKilled
      ? 'was killed for writing far more output than is kept'
      : run.exitSignal !== null
        ? `was killed by ${run.exitSignal}`
        : `exit code ${String(run.exitCode)}`
  const stream = (name: string, text: string, bytes: number) =>
    `--- ${name}${bytes > Buffer.byteLength(text) ? ` (first ${Buffer.byteLength(text)} of ${bytes} bytes)` : ''} ---\n${text}`
  return [ending, stream('stdout', run.stdout, run.stdoutBytes), stream('stderr', run.stderr, run.stderrBytes)].join(
    '\n',
  )
}

/**
 * The built-in tools of a workspace: `read_file`, `write_file`, `list_files`, `run_command`
 * (`sh -c`) and `run_python` (the code on stdin). Each acts on the workspace of the attempt that
 * calls it; `actors.agent({ workspace })` adds them. A path outside the workspace is the call's error.
 *
 * @example
 * actors.agent({ model, tools: [], workspace: { timeoutMs: 5000 } }) // offers these five tools
 */
export function workspaceTools(): AgentTool[] {
  const here = (context: { workspace?: Workspace }): Workspace => {
    if (!context.workspace) throw new Error('this tool needs a workspace: use actors.agent({ workspace: true })')
    return context.workspace
  }
  return [
    tool({
      name: 'read_file',
      description: 'Reads a text file of the workspace (path relative to it).',
      parameters: z.object({ path: z.string() }).strict(),
      run: async ({ path }, context) => {
        const read = await here(context).read(path)
        return read.cut ? `${read.text}\n[first ${read.text.length} characters of ${read.bytes} bytes]` : read.text
      },
    }),
    tool({
      name: 'write_file',
      description: 'Writes a text file of the workspace (path relative to it), replacing it; makes its directories.',
      parameters: z.object({ path: z.string(), content: z.string() }).strict(),
      run: async ({ path, content }, context) => `wrote ${await here(context).write(path, content)} bytes to ${path}`,
    }),
    tool({
      name: 'list_files',
      description: 'Lists the files of the workspace, or of one directory of it.',
      parameters: z.object({ path: z.string().optional() }).strict(),
      run: ({ path }, context) => here(context).list(path ?? ''),
    }),
    tool({
      name: 'run_command',
      description: 'Runs a shell command (sh -c) in the workspace, sandboxed: no network, time and memory limits.',
      parameters: z.object({ command: z.string().min(1) }).strict(),
      run: async ({ command }, context) => {
        const ws = here(context)
        return describeRun(await ws.run(['sh', '-c', command], undefined, context.signal), ws.settings)
      },
    }),
    tool({
      name: 'run_python',
      description: 'Runs Python code in the workspace (as python3 -), sandboxed: no network, time and memory limits.',
      parameters: z.object({ code: z.string().min(1) }).strict(),
      run: async ({ code }, context) => {
        const ws = here(context)
        return describeRun(await ws.run(['python3', '-'], code, context.signal), ws.settings)
      },
    }),
  ]
}
