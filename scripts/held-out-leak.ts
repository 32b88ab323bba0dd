// How many held-out calls reach verifier feedback through what the candidate controls: the first
// N HumanEval Pro tasks (default 20) with `heldOut: { share: 0.5, seed }`, each answered by its
// reference wrapped in an *echo*: every call of the entry point raises an error whose text lists
// every call the candidate's process has seen, the calls waiting unread in its call socket (sent
// ahead), and the names the request asked about. A held-out call counts as leaked when its text
// (`name(arguments)`, compared without whitespace and with one kind of quote) is in the feedback
// text `feedback.verifier()` renders from the verdict; a held-out name when a name only held-out
// statements use is.
//
//   npx tsx scripts/held-out-leak.ts [tasks] [seed]
//
// Reads ../shared/benchmarks/ (never copied into the repository).
import { execFileSync } from 'node:child_process'
import { loadHumanEvalPro, referenceCode, loadCodeEvalPro } from '../src/benchmarks/index.js'
import { codeEvalProFiles } from '../src/benchmarks/test-helpers.js'
import { renderVerifierFeedback } from '../src/feedback/verifier-feedback.js'
import { verifiers } from '../src/verifiers/index.js'
import { heldOutIndices } from '../src/verifiers/python-tests/held-out.js'
import { closeAllPools } from '../src/verifiers/python-tests/pool.js'

const count = Number(process.argv[2] ?? 20)
const seed = Number(process.argv[3] ?? 1)

/** The echo, appended to the reference: `ENTRY` is replaced by the task's entry point. */
export const ECHO = String.raw`
import gc as _e_gc, json as _e_json, os as _e_os, socket as _e_socket
_e_seen = []
def _e_value(node):
    tag = node[0]
    if tag == 'n': return None
    if tag == 'b': return bool(node[1])
    if tag == 'i': return int(node[1], 16)
    if tag == 'f': return float.fromhex(node[1])
    if tag == 's': return node[1]
    if tag == 'l': return [_e_value(x) for x in node[1]]
    if tag == 't': return tuple(_e_value(x) for x in node[1])
    if tag == 'd': return {_e_value(k): _e_value(v) for k, v in node[1]}
    if tag in ('S', 'F'): return set(_e_value(x) for x in node[1])
    return '?'
def _e_text(name, args):
    return '%s(%s)' % (name, ', '.join(repr(a) for a in args))
def _e_pending():
    out = []
    for fd in range(3, 256):
        try:
            s = _e_socket.socket(fileno=_e_os.dup(fd))
        except OSError:
            continue
        try:
            s.setblocking(False)
            data = s.recv(1 << 20, _e_socket.MSG_PEEK)
        except OSError:
            data = b''
        finally:
            s.close()
        while len(data) >= 4:
            n = int.from_bytes(data[:4], 'big')
            body, data = data[4:4 + n], data[4 + n:]
            try:
                m = _e_json.loads(body)
                if m.get('t') == 'call':
                    out.append(_e_text(m['name'], _e_value(m['args'])))
            except Exception:
                pass
    return out
def _e_names():
    for o in _e_gc.get_objects():
        if type(o) is dict and o.get('t') == 'request' and 'names' in o:
            return list(o['names'])
    return []
_e_inner = ENTRY
def ENTRY(*args, **kwargs):
    _e_seen.append(_e_text('ENTRY', args))
    fresh = []
    for c in _e_seen + _e_pending():
        if c not in fresh:
            fresh.append(c)
    raise ValueError('seen %s; names %s' % (' '.join(fresh), ' '.join(_e_names())))
`

/** Python: each held-out statement's calls (`name(args)` as written) and the names only it uses. */
const CALLS = String.raw`
import ast, json, sys
out = []
for tests, held in json.load(sys.stdin):
    tree = ast.parse(tests)
    names = lambda nodes: {n.id for node in nodes for n in ast.walk(node) if isinstance(n, ast.Name)}
    visible = names([s for i, s in enumerate(tree.body) if i not in held])
    per = []
    for i in held:
        node = tree.body[i]
        calls = [ast.get_source_segment(tests, c) for c in ast.walk(node) if isinstance(c, ast.Call) and isinstance(c.func, ast.Name)]
        per.append({'index': i, 'calls': calls, 'names': sorted(names([node]) - visible)})
    out.append(per)
print(json.dumps(out))
`

const normal = (text: string) => text.replace(/\s+/g, '').replaceAll('"', "'")

export interface LeakCount {
  heldOutStatements: number
  leakedStatements: number
  heldOutOnlyNames: number
  leakedNames: number
}

export async function measureLeak(tasks: number, splitSeed: number): Promise<LeakCount> {
  const entries = loadCodeEvalPro(codeEvalProFiles['humaneval-pro'], { benchmark: 'humaneval-pro' }).slice(0, tasks)
  const split = { share: 0.5, seed: splitSeed }
  const verifier = verifiers.pythonTests({ heldOut: split })
  const held = entries.map(({ task }) => {
    const statements = JSON.parse(
      execFileSync('/usr/bin/python3', ['-c', 'import ast,sys; print(len(ast.parse(sys.stdin.read()).body))'], {
        input: task.tests as string,
      }).toString(),
    ) as number
    return heldOutIndices(task.id, statements, split)
  })
  const calls = JSON.parse(
    execFileSync('/usr/bin/python3', ['-c', CALLS], {
      input: JSON.stringify(entries.map(({ task }, i) => [task.tests, held[i]])),
    }).toString(),
  ) as { index: number; calls: string[]; names: string[] }[][]
  const result: LeakCount = { heldOutStatements: 0, leakedStatements: 0, heldOutOnlyNames: 0, leakedNames: 0 }
  for (const [i, { task, record }] of entries.entries()) {
    const entry = task.entryPoint as string
    const code = `${referenceCode(record)}\n${ECHO.replaceAll('ENTRY', entry)}`
    const verdict = await verifier.verify(task, `\`\`\`python\n${code}\n\`\`\``)
    const text = normal(renderVerifierFeedback(verdict.diagnostics, undefined).text)
    for (const statement of calls[i]!) {
      result.heldOutStatements++
      if (statement.calls.some((c) => text.includes(normal(c)))) result.leakedStatements++
      for (const name of statement.names) {
        result.heldOutOnlyNames++
        if (new RegExp(`\\b${name}\\b`).test(text)) result.leakedNames++
      }
    }
  }
  return result
}

if (import.meta.url === `file://${process.argv[1]}`) {
  void loadHumanEvalPro
  const leak = await measureLeak(count, seed)
  console.log(
    `${count} HumanEval Pro tasks, heldOut { share: 0.5, seed: ${seed} }: ${leak.leakedStatements} of ${leak.heldOutStatements} held-out statements have a call in verifier feedback; ${leak.leakedNames} of ${leak.heldOutOnlyNames} names only held-out statements use appear in it`,
  )
  await closeAllPools()
}
