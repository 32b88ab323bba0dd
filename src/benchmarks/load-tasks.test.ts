import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { gzipSync } from 'node:zlib'
import fc from 'fast-check'
import { afterAll, describe, expect, it } from 'vitest'
import { loadTasks, readTaskText, TaskFileError } from './load-tasks.js'

const dir = mkdtempSync(join(tmpdir(), 'seqk-load-tasks-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))
let n = 0
/** Writes a file under a fresh name with the given extension and returns its path. */
const file = (text: string, ext = 'csv') => {
  const path = join(dir, `tasks-${++n}.${ext}`)
  writeFileSync(path, text)
  return path
}
/** The TaskFileError a load throws, for its fields. */
const failure = (load: () => unknown): TaskFileError => {
  try {
    load()
  } catch (error) {
    if (error instanceof TaskFileError) return error
    throw error
  }
  throw new Error('expected loadTasks to throw')
}

describe('loadTasks: JSON Lines', () => {
  it('reads one task per line, skipping blank lines, checked against TaskSchema', () => {
    const path = file(
      '{"id": "a", "prompt": "2+2?", "expected": "4"}\n\n{"id": "b", "prompt": "Capital of France?", "expected": ["Paris", "paris"]}\r\n',
      'jsonl',
    )
    expect(loadTasks(path)).toEqual([
      { id: 'a', prompt: '2+2?', expected: '4' },
      { id: 'b', prompt: 'Capital of France?', expected: ['Paris', 'paris'] },
    ])
    expect(loadTasks(pathToFileURL(path), { limit: 1 })).toHaveLength(1)
  })

  it('takes numbers and booleans as `expected`, as JSON writes them, alone or in a list', () => {
    const path = file(
      '{"id": "total", "prompt": "Total?", "expected": 1234.5}\n{"id": "paid", "prompt": "Paid?", "expected": true}\n' +
        '{"id": "either", "prompt": "Count?", "expected": [3, "three"]}\n',
      'jsonl',
    )
    expect(loadTasks(path)).toEqual([
      { id: 'total', prompt: 'Total?', expected: 1234.5 },
      { id: 'paid', prompt: 'Paid?', expected: true },
      { id: 'either', prompt: 'Count?', expected: [3, 'three'] },
    ])
    const infinite = file('{"id": "x", "prompt": "p", "expected": 1e999}\n', 'jsonl')
    expect(failure(() => loadTasks(infinite))).toMatchObject({ line: 1, field: 'expected' })
  })

  it('hostile: a record with __proto__ or constructor keys pollutes nothing and keeps its fields as data', () => {
    const jsonl = file(
      '{"id": "a", "prompt": "p", "__proto__": {"polluted": true}, "constructor": {"prototype": {"polluted": true}}}\n',
      'jsonl',
    )
    expect(loadTasks(jsonl)).toEqual([{ id: 'a', prompt: 'p' }])
    const csv = file('id,prompt,__proto__,constructor\na,p,x,y\n')
    // Kept in metadata, zod would drop the column: it is refused instead of lost.
    expect(failure(() => loadTasks(csv, { map: { id: 'id', prompt: 'prompt' } }))).toMatchObject({
      line: 2,
      field: '__proto__',
      message: expect.stringContaining('cannot be kept in metadata; rename it'),
    })
    const [task] = loadTasks(csv, { map: { id: 'id', prompt: 'prompt', metadata: ['constructor'] } })
    expect(Object.getPrototypeOf(task!.metadata)).toBe(Object.prototype)
    expect(Object.entries(task!.metadata!)).toEqual([['constructor', 'y']])
    expect(({} as Record<string, unknown>).polluted).toBeUndefined()
  })

  it('maps records with a function, given the line', () => {
    const path = file('{"q": "2+2?", "a": 4}\n{"q": "3+3?", "a": 6}\n', 'jsonl')
    expect(
      loadTasks(path, { map: (row, line) => ({ id: `sum/${line}`, prompt: String(row.q), expected: String(row.a) }) }),
    ).toEqual([
      { id: 'sum/1', prompt: '2+2?', expected: '4' },
      { id: 'sum/2', prompt: '3+3?', expected: '6' },
    ])
  })

  it('names the file, the line and the field of every problem', () => {
    const bad = file('{"id": "a", "prompt": "ok"}\n{"id": "b", "prompt": "x",}\n', 'jsonl')
    expect(failure(() => loadTasks(bad))).toMatchObject({
      file: bad,
      line: 2,
      message: expect.stringMatching(
        new RegExp(`^${bad} line 2: not valid JSON \\(.*\\); each line must be one JSON object$`),
      ),
    })
    const array = file('["a"]\n', 'jsonl')
    expect(failure(() => loadTasks(array)).message).toBe(`${array} line 1: expected a JSON object, got an array`)
    const field = file('{"id": "a", "prompt": "ok"}\n{"id": "b", "prompt": "ok", "expected": {"total": 4}}\n', 'jsonl')
    expect(failure(() => loadTasks(field))).toMatchObject({
      line: 2,
      field: 'expected',
      message: expect.stringMatching(new RegExp(`^${field} line 2: expected: Invalid input`)),
    })
    const noId = file('{"prompt": "ok"}\n', 'jsonl')
    expect(failure(() => loadTasks(noId)).message).toMatch(
      /line 1: id: Invalid input: expected string, received undefined \(add an id column, or map one: \{ map: \{ id: "<column>" \} \}\)$/,
    )
    const twice = file('{"id": "a", "prompt": "x"}\n{"id": "b", "prompt": "y"}\n{"id": "a", "prompt": "z"}\n', 'jsonl')
    expect(failure(() => loadTasks(twice))).toMatchObject({
      line: 3,
      field: 'id',
      message: `${twice} line 3: id "a" repeats the task on line 1; ids must be unique`,
    })
    const throws = file('{"id": "a"}\n', 'jsonl')
    expect(
      failure(() =>
        loadTasks(throws, {
          map: () => {
            throw new Error('no prompt column')
          },
        }),
      ).message,
    ).toBe(`${throws} line 1: map threw: no prompt column`)
  })
})

describe('loadTasks: CSV', () => {
  const CSV =
    'qid,question,answer,source\n1,"Capital of France, one word?",Paris,atlas\n2,"Say ""hi""\non two lines",hi,chat\n'

  it('maps columns to fields and keeps the other columns in metadata', () => {
    expect(loadTasks(file(CSV), { map: { id: 'qid', prompt: 'question', expected: 'answer' } })).toEqual([
      { id: '1', prompt: 'Capital of France, one word?', expected: 'Paris', metadata: { source: 'atlas' } },
      { id: '2', prompt: 'Say "hi"\non two lines', expected: 'hi', metadata: { source: 'chat' } },
    ])
    expect(loadTasks(file(CSV), { map: { id: 'qid', prompt: 'question', metadata: [] } })[0]).toEqual({
      id: '1',
      prompt: 'Capital of France, one word?',
    })
    // A header naming the fields needs no map; a byte-order mark and a tab-separated file are read too.
    expect(loadTasks(file('\uFEFFid,prompt,expected\nx,2+2?,4\n'))).toEqual([
      { id: 'x', prompt: '2+2?', expected: '4' },
    ])
    expect(loadTasks(file('id\tprompt\nx\ta, b\n', 'tsv'))).toEqual([{ id: 'x', prompt: 'a, b' }])
  })

  it('names the line a record starts on, even after quoted line breaks and blank lines', () => {
    const path = file('id,prompt,expected\na,"one\ntwo\nthree",x\n\nb,,y\n')
    expect(failure(() => loadTasks(path))).toMatchObject({
      line: 6,
      field: 'prompt',
      message: expect.stringMatching(new RegExp(`^${path} line 6: prompt: `)),
    })
  })

  it('names the file, the line and the column of every problem', () => {
    const short = file('id,prompt,expected\na,b,c\nd,e\n')
    expect(failure(() => loadTasks(short))).toMatchObject({
      line: 3,
      message: expect.stringMatching(
        new RegExp(
          `^${short} line 3: not valid CSV \\(Invalid Record Length: columns length is 3, got 2 on line 3\\)$`,
        ),
      ),
    })
    const open = file('id,prompt\na,"unclosed\nb,c\n')
    expect(failure(() => loadTasks(open)).message).toMatch(/: not valid CSV \(Quote Not Closed/)
    const repeated = file('id,prompt,id\na,b,c\n')
    expect(failure(() => loadTasks(repeated))).toMatchObject({
      line: 1,
      field: 'id',
      message: `${repeated} line 1: column "id" appears twice in the header; name each column once`,
    })
    const missing = file('qid,question\n1,hi\n')
    expect(failure(() => loadTasks(missing, { map: { id: 'qid', prompt: 'prompt' } }))).toMatchObject({
      line: 2,
      field: 'prompt',
      message: `${missing} line 2: map.prompt names the column "prompt", which this record lacks (its columns: "qid", "question")`,
    })
    expect(failure(() => loadTasks(file('id,prompt\n')))).toMatchObject({
      message: expect.stringMatching(/: no records; a task file needs at least one row under the header$/),
    })
    expect(failure(() => loadTasks(join(dir, 'nope.csv'))).message).toBe(
      `${join(dir, 'nope.csv')}: cannot read the task file (ENOENT)`,
    )
  })

  it('checks its options, naming the option and the fix', () => {
    const path = file(CSV)
    expect(() => loadTasks(path, { map: { id: 'qid', promt: 'question' } as never })).toThrow(
      `loadTasks("${path}", { map }): unknown option "promt" (did you mean "prompt"?)`,
    )
    expect(() => loadTasks(path, { map: { id: 3 } as never })).toThrow('map.id must be a column name, got 3')
    expect(() => loadTasks(path, { mapping: {} } as never)).toThrow(
      'unknown option "mapping"; valid options: delimiter, format, limit, map',
    )
    expect(() => loadTasks(path, { limit: 0 })).toThrow('limit must be an integer >= 1, got 0')
    expect(() => loadTasks(path, { delimiter: '::' })).toThrow('delimiter must be one character, got "::"')
    expect(() => loadTasks(file('x', 'txt'))).toThrow(
      /cannot tell the format from the extension "\.txt"; name a \.jsonl or \.csv file \(gzipped: \.jsonl\.gz, \.csv\.gz\), or pass format: 'jsonl' \| 'csv'/,
    )
    expect(loadTasks(file('{"id": "a", "prompt": "b"}\n', 'txt'), { format: 'jsonl' })).toEqual([
      { id: 'a', prompt: 'b' },
    ])
  })

  it('refuses a task id with a control character, naming the file, the line and the field', () => {
    const csv = file('id,prompt\r\n"a\tb",hello\r\n')
    expect(() => loadTasks(csv)).toThrow(`${csv} line 2: id: a task id must not contain control characters`)
    expect(() => loadTasks(file('{"id": "a\\nb", "prompt": "p"}\n', 'jsonl'))).toThrow(
      /line 1: id: a task id must not contain control characters/,
    )
  })

  it('reads back any tasks written as CSV or as JSON Lines (seeded property)', () => {
    const cell = fc.string({
      unit: fc.constantFrom('a', 'Z', ' ', ',', '"', '\n', '\t', 'é', '1'),
      minLength: 1,
      maxLength: 12,
    })
    // A task id with a control character is refused (it would break JSONL lines and tables); prompts keep theirs.
    const id = fc.string({ unit: fc.constantFrom('a', 'Z', ' ', ',', '"', 'é', '1'), minLength: 1, maxLength: 12 })
    const quoted = (s: string) => `"${s.replace(/"/g, '""')}"`
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.record({ id, prompt: cell, expected: cell }), {
          minLength: 1,
          maxLength: 5,
          selector: (t) => t.id,
        }),
        (tasks) => {
          const csv = [
            'id,prompt,expected',
            ...tasks.map((t) => [t.id, t.prompt, t.expected].map(quoted).join(',')),
          ].join('\r\n')
          expect(loadTasks(file(csv))).toEqual(tasks)
          expect(loadTasks(file(tasks.map((t) => JSON.stringify(t)).join('\n'), 'jsonl'))).toEqual(tasks)
        },
      ),
      { seed: 20261201, numRuns: 200 },
    )
  })
})

describe('loadTasks: encodings, compression and delimiters', () => {
  const JSONL = '{"id":"a","prompt":"café crème"}\n{"id":"b","prompt":"naïve 漢字 😀"}\n'
  const TASKS = [
    { id: 'a', prompt: 'café crème' },
    { id: 'b', prompt: 'naïve 漢字 😀' },
  ]
  const bytes = (content: Uint8Array, ext: string) => {
    const path = join(dir, `tasks-${++n}.${ext}`)
    writeFileSync(path, content)
    return path
  }
  const utf16 = (text: string, order: 'LE' | 'BE') => {
    const le = Buffer.from(`\ufeff${text}`, 'utf16le')
    return order === 'LE' ? le : le.swap16()
  }

  it('reads a UTF-8 byte-order mark, UTF-16 LE and BE with one, and gzip, as the same tasks', () => {
    // Before: each was "line 1: not valid JSON" with no word of the encoding.
    const bom = Buffer.from([0xef, 0xbb, 0xbf])
    expect(loadTasks(bytes(Buffer.concat([bom, Buffer.from(JSONL)]), 'jsonl'))).toEqual(TASKS)
    expect(loadTasks(bytes(utf16(JSONL, 'LE'), 'jsonl'))).toEqual(TASKS)
    expect(loadTasks(bytes(utf16(JSONL, 'BE'), 'jsonl'))).toEqual(TASKS)
    expect(loadTasks(bytes(gzipSync(JSONL), 'jsonl.gz'))).toEqual(TASKS)
    // By its bytes, whatever its name: a gzip saved as .jsonl, and gzipped UTF-16.
    expect(loadTasks(bytes(gzipSync(utf16(JSONL, 'LE')), 'jsonl'))).toEqual(TASKS)
    const csv = 'id,prompt\r\na,café crème\r\nb,naïve 漢字 😀\r\n'
    expect(loadTasks(bytes(Buffer.concat([bom, Buffer.from(csv)]), 'csv'))).toEqual(TASKS)
    expect(loadTasks(bytes(utf16(csv, 'BE'), 'csv'))).toEqual(TASKS)
    expect(loadTasks(bytes(gzipSync(csv.replaceAll(',', '\t')), 'tsv.gz'))).toEqual(TASKS)
  })

  it('law: any tasks read back the same from UTF-16 LE, BE and gzip (fast-check, seed 47)', () => {
    const text = fc.string({ unit: 'grapheme', minLength: 1, maxLength: 12 })
    fc.assert(
      fc.property(fc.uniqueArray(text, { minLength: 1, maxLength: 4 }), text, (ids, prompt) => {
        const tasks = ids.filter((id) => !/\p{Cc}/u.test(id)).map((id) => ({ id, prompt }))
        if (tasks.length === 0) return
        const jsonl = tasks.map((t) => JSON.stringify(t)).join('\n')
        for (const content of [utf16(jsonl, 'LE'), utf16(jsonl, 'BE'), gzipSync(jsonl)])
          expect(loadTasks(bytes(content, 'jsonl'))).toEqual(tasks)
      }),
      { seed: 47, numRuns: 60 },
    )
  })

  it('hostile: Latin-1 is refused naming the line and byte offset, never loaded with its bytes replaced', () => {
    // Before: loaded, "caf\ufffd cr\ufffdme".
    const latin = bytes(Buffer.from(JSONL, 'latin1'), 'jsonl')
    expect(failure(() => loadTasks(latin))).toMatchObject({
      line: 1,
      message: expect.stringMatching(
        /^.* line 1: not UTF-8: byte 0xe9 at byte 23 \(line 1, byte 24 of the line\) is not valid UTF-8; it looks like Latin-1 .*iconv -f WINDOWS-1252 -t UTF-8 /,
      ),
    })
    // The offset is the file's (a byte-order mark counted), the line the one the byte is on.
    const later = bytes(
      Buffer.concat([
        Buffer.from([0xef, 0xbb, 0xbf]),
        Buffer.from('{"id":"a","prompt":"ok"}\n{"id":"b","prompt":"\xff"}\n', 'latin1'),
      ]),
      'jsonl',
    )
    expect(failure(() => loadTasks(later))).toMatchObject({
      line: 2,
      message: expect.stringMatching(/ line 2: not UTF-8: byte 0xff at byte 48 \(line 2, byte 21 of the line\)/),
    })
    const bad = bytes(
      Buffer.concat([Buffer.from('id,prompt\na,ok\nb,x'), Buffer.from([0xc3, 0x28]), Buffer.from('\n')]),
      'csv',
    )
    expect(failure(() => loadTasks(bad))).toMatchObject({
      line: 3,
      message: expect.stringMatching(/ line 3: not UTF-8: byte 0xc3 at byte 18 \(line 3, byte 4 of the line\)/),
    })
  })

  it('hostile: encodings it cannot be sure of are named, with the fix', () => {
    const cases: [Uint8Array, RegExp][] = [
      [Buffer.from(JSONL, 'utf16le'), /NUL in every other byte: UTF-16 LE without a byte-order mark\?/],
      [utf16(JSONL, 'LE').subarray(0, 9), /not valid UTF-16LE: .* odd number of bytes \(9\), so it was cut short/],
      [Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from([0x00, 0xd8, 0x41, 0x00])]), /UTF-16LE: .*lone surrogate/],
      [Buffer.concat([Buffer.from([0xff, 0xfe, 0, 0]), Buffer.from('{', 'utf16le')]), /UTF-32 LE text/],
      [Buffer.from([0x50, 0x4b, 0x03, 0x04, 0x00]), /a zip archive/],
      [gzipSync(JSONL).subarray(0, 12), /cannot decompress the gzipped task file: .*cut short or not gzip/],
      [gzipSync(Buffer.from(JSONL, 'latin1')), / line 1 \(decompressed\): not UTF-8: byte 0xe9/],
    ]
    for (const [content, message] of cases) expect(() => loadTasks(bytes(content, 'jsonl'))).toThrow(message)
  })

  it('hostile: a gzip bomb is refused at the cap, not read into memory', () => {
    const bomb = bytes(gzipSync(Buffer.alloc(64 * 1024, 0x20)), 'jsonl.gz')
    expect(() => readTaskText(bomb, 4096)).toThrow(/cannot decompress .*: it expands past 4096 bytes; split it/)
    expect(readTaskText(bytes(gzipSync('{}'), 'jsonl.gz'), 4096)).toBe('{}')
  })

  it('suggests the delimiter a CSV seems to use when its header is one column', () => {
    // Before: "line 2: id: Invalid input: expected string, received undefined".
    for (const [d, name] of [
      [';', "';'"],
      ['\t', "'\\\\t' \\(tab\\)"],
      ['|', "'\\|'"],
    ] as const) {
      const path = file(`id${d}prompt${d}expected\na${d}"x${d} y"${d}1\nb${d}z${d}2\n`)
      expect(failure(() => loadTasks(path))).toMatchObject({
        line: 1,
        message: expect.stringMatching(
          new RegExp(
            `^.* line 1: the header is one column \\(".*"\\) with the delimiter ',' \\(the default\\); the file seems to use ${name}: pass \\{ delimiter: `,
          ),
        ),
      })
      expect(loadTasks(path, { delimiter: d })).toEqual([
        { id: 'a', prompt: `x${d} y`, expected: '1' },
        { id: 'b', prompt: 'z', expected: '2' },
      ])
    }
    // The delimiter given, and the file using another.
    expect(() => loadTasks(file('id,prompt\na,b\n'), { delimiter: ';' })).toThrow(
      /with the delimiter ';'; the file seems to use ',': pass \{ delimiter: "," \}/,
    )
  })

  it('leaves a one-column CSV alone when no delimiter splits it evenly', () => {
    const path = file('prompt\nhello; world\nno semicolon here\n')
    expect(loadTasks(path, { map: (row, line) => ({ id: `l${line}`, prompt: row.prompt as string }) })).toEqual([
      { id: 'l2', prompt: 'hello; world' },
      { id: 'l3', prompt: 'no semicolon here' },
    ])
  })
})
