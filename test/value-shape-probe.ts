/**
 * Which honest value shapes (test/honest-shapes.ts) change anything on a task, for the parity
 * corpus (test/parity.test.ts). A conversion shape reshapes only the values of its type that the
 * entry point returns (a namedtuple for a tuple, a keys view for a set, ...); on a task whose
 * entry point never returns such a value, the shaped answer returns exactly the reference's
 * values through one more wrapper, so its verdicts say nothing the reference's do not (the wrapper
 * itself is checked on every task by exception-text, which this probe does not prune).
 *
 * The probe runs each task's reference with its own tests once, in a process forked from one
 * driver per slice of the tasks: the entry point is wrapped as the shapes wrap it (outermost call
 * only), and every value it returns is passed through each shape's own conversion
 * ({@link valueConversion}); a shape applies when the converted value's type tree (the types of
 * the value and of the items of its lists, tuples and dicts) differs from the original's. A task
 * whose probe does not finish cleanly (an error, 20 s) keeps every shape: the probe may only
 * remove an answer it has shown to be redundant.
 *
 * numpy-scalars is not probed (its conversion imports numpy, a second per task) and stays on
 * every task, as does exception-text.
 */
import { spawn } from 'node:child_process'
import { VALUE_SHAPES, valueConversion, type ValueShape } from './honest-shapes.js'
import { OFFICIAL_PYTHON } from './official-harness.js'

/** The shapes the probe can prune. */
export const PROBED_SHAPES = VALUE_SHAPES.filter(
  (shape): shape is Exclude<ValueShape, 'exception-text' | 'numpy-scalars'> =>
    shape !== 'exception-text' && shape !== 'numpy-scalars',
)

/** One task to probe: the reference code, its entry point and its tests. */
export interface ProbeTask {
  id: string
  code: string
  entryPoint: string
  tests: string
}

/** Per task id: the probed shapes that change a value there, or `undefined` when the probe did not finish (keep all). */
export type ShapeApplicability = ReadonlyMap<string, ReadonlySet<ValueShape> | undefined>

/** The program a forked child runs: the reference, the conversions under their own names, the observing wrapper, the tests. */
function probeProgram(task: ProbeTask): string {
  const conversions = Object.fromEntries(PROBED_SHAPES.map((shape) => [shape, valueConversion(shape)]))
  return [
    task.code.trimEnd(),
    '',
    '',
    `_seqk_sources = ${JSON.stringify(conversions)}`,
    '_seqk_conversions = {}',
    'for _seqk_name, _seqk_source in _seqk_sources.items():',
    '    _seqk_ns = {}',
    '    exec(_seqk_source, _seqk_ns)',
    "    _seqk_conversions[_seqk_name] = _seqk_ns['_seqk_shape']",
    '_seqk_applies = set()',
    'def _seqk_tree(value):',
    '    if isinstance(value, (list, tuple)):',
    '        return (type(value), tuple(_seqk_tree(v) for v in value))',
    '    if isinstance(value, dict):',
    '        return (type(value), tuple(_seqk_tree(v) for v in value.values()))',
    '    return type(value)',
    `_seqk_inner = ${task.entryPoint}`,
    '_seqk_depth = [0]',
    `def ${task.entryPoint}(*args, **kwargs):`,
    '    if _seqk_depth[0]:',
    '        return _seqk_inner(*args, **kwargs)',
    '    _seqk_depth[0] += 1',
    '    try:',
    '        value = _seqk_inner(*args, **kwargs)',
    '    finally:',
    '        _seqk_depth[0] -= 1',
    '    for name, convert in _seqk_conversions.items():',
    '        if name not in _seqk_applies:',
    '            try:',
    '                if _seqk_tree(convert(value)) != _seqk_tree(value):',
    '                    _seqk_applies.add(name)',
    '            except BaseException:',
    '                _seqk_applies.add(name)',
    '    return value',
    task.tests,
    '',
  ].join('\n')
}

/**
 * The driver: reads `[[id, program], ...]` as JSON on stdin, runs each program in a forked child
 * (stdio closed, 20 s alarm) and prints one JSON line per task: `[id, shapes]`, or `[id, null]`
 * when the child did not finish cleanly.
 */
const DRIVER = String.raw`
import json, os, signal, sys
tasks = json.load(sys.stdin)
for task_id, program in tasks:
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(read_end)
        null = os.open(os.devnull, os.O_RDWR)
        for fd in (0, 1, 2):
            os.dup2(null, fd)
        signal.alarm(20)
        scope = {'__name__': '__main__'}
        try:
            exec(compile(program, 'probe.py', 'exec'), scope)
            out = json.dumps(sorted(scope['_seqk_applies']))
        except BaseException:
            out = 'null'
        os.write(write_end, out.encode())
        os._exit(0)
    os.close(write_end)
    chunks = []
    while True:
        chunk = os.read(read_end, 65536)
        if not chunk:
            break
        chunks.append(chunk)
    os.close(read_end)
    os.waitpid(pid, 0)
    text = b''.join(chunks).decode() or 'null'
    print(json.dumps([task_id, json.loads(text)]), flush=True)
`

function runDriver(tasks: readonly ProbeTask[]): Promise<Map<string, ReadonlySet<ValueShape> | undefined>> {
  return new Promise((resolve, reject) => {
    const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('PYTHON')))
    // The tasks' own limit is the child's alarm; this one bounds the whole slice.
    const child = spawn(OFFICIAL_PYTHON, ['-c', DRIVER], {
      env,
      stdio: ['pipe', 'pipe', 'pipe'],
      timeout: 900_000,
      killSignal: 'SIGKILL',
    })
    let stdout = ''
    let stderr = ''
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk))
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr = (stderr + chunk).slice(-4000)))
    child.on('error', reject)
    child.on('close', (code, signal) => {
      if (code !== 0) {
        reject(new Error(`value-shape probe: ${OFFICIAL_PYTHON} exited ${String(code ?? signal)}: ${stderr.trim()}`))
        return
      }
      const result = new Map<string, ReadonlySet<ValueShape> | undefined>()
      for (const line of stdout.split('\n').filter((l) => l !== '')) {
        const [id, shapes] = JSON.parse(line) as [string, ValueShape[] | null]
        result.set(id, shapes === null ? undefined : new Set(shapes))
      }
      resolve(result)
    })
    child.stdin.end(JSON.stringify(tasks.map((task) => [task.id, probeProgram(task)])))
  })
}

/**
 * Probes every task (in `slices` driver processes at once): which of {@link PROBED_SHAPES} change a
 * value the entry point returns. A task missing from the answer, or whose probe failed, maps to
 * `undefined` (keep every shape).
 */
export async function probeValueShapes(tasks: readonly ProbeTask[], slices: number): Promise<ShapeApplicability> {
  const parts = Array.from({ length: Math.max(1, slices) }, (_, s) => tasks.filter((_, i) => i % slices === s))
  const results = await Promise.all(parts.map(runDriver))
  return new Map(tasks.map((task) => [task.id, results.find((r) => r.has(task.id))?.get(task.id)]))
}
