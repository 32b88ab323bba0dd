import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { gzipSync } from 'node:zlib'
import fc from 'fast-check'
import { afterAll, describe, expect, it } from 'vitest'
import { loadHealthBench } from './healthbench.js'
import { loadHumanEvalPro } from './codeeval-pro.js'
import { decodeUtf8, NotUtf8Error } from './text-file.js'

const dir = mkdtempSync(join(tmpdir(), 'seqk-text-file-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

describe('decodeUtf8', () => {
  it('law: any string encoded as UTF-8 decodes to itself, with or without a byte-order mark (fast-check, seed 28)', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme' }), fc.boolean(), (text, bom) => {
        const bytes = Buffer.concat([
          bom ? Buffer.from([0xef, 0xbb, 0xbf]) : Buffer.alloc(0),
          Buffer.from(text, 'utf8'),
        ])
        return decodeUtf8(bytes, 'f') === text
      }),
      { seed: 28, numRuns: 300 },
    )
  })

  it('names the compression or encoding it found, with the fix', () => {
    const cases: [Uint8Array, RegExp][] = [
      [
        gzipSync('{"a":1}\n'),
        /^not UTF-8 text but gzip-compressed \(it starts with the gzip magic bytes 1f 8b\); decompress it first: gunzip t\.jsonl$/,
      ],
      [
        Buffer.from('\ufeff{"a":1}', 'utf16le'),
        /UTF-16 LE text \(byte-order mark ff fe\); re-save it as UTF-8: iconv -f UTF-16 -t UTF-8 t\.jsonl/,
      ],
      [Buffer.concat([Buffer.from([0xfe, 0xff]), Buffer.from('{"a"', 'utf16le').swap16()]), /UTF-16 BE text/],
      [
        Buffer.from('{"a":1}\n{"b":2}\n', 'utf16le'),
        /NUL in every other byte: UTF-16 LE without a byte-order mark\? Re-save it as UTF-8: iconv -f UTF-16LE/,
      ],
      [Buffer.from([0x50, 0x4b, 0x03, 0x04, 0x00]), /a zip archive/],
      [
        Buffer.from('{"p":"ok"}\n{"p":"caf\xe9 cr\xe8me"}\n', 'latin1'),
        /^not UTF-8: byte 0xe9 at byte 20 \(line 2, byte 10 of the line\) is not valid UTF-8; it looks like Latin-1 \(ISO-8859-1\) or Windows-1252: re-save it as UTF-8: iconv -f WINDOWS-1252 -t UTF-8 t\.jsonl$/,
      ],
      [
        Buffer.from([0x61, 0xed, 0xa0, 0x80]),
        /byte 0xed at byte 1 \(line 1, byte 2 of the line\) is not valid UTF-8; re-save it as UTF-8$/,
      ],
    ]
    for (const [bytes, message] of cases) expect(() => decodeUtf8(bytes, 't.jsonl')).toThrow(message)
    expect(() => decodeUtf8(Buffer.from([0xc3]), 't')).toThrow(NotUtf8Error)
  })
})

describe('the loaders read strictly', () => {
  it('a Latin-1 HealthBench file and a gzipped HumanEval Pro file are refused by name, not loaded with U+FFFD', () => {
    // Before: invalid bytes became U+FFFD silently, Latin-1 was accepted, gzip failed as "not JSON".
    const latin = join(dir, 'health.jsonl')
    writeFileSync(
      latin,
      Buffer.from(
        `${JSON.stringify({ prompt_id: 'p1', prompt: [{ role: 'user', content: 'caf\u00e9?' }], rubrics: [{ criterion: 'says yes', points: 1, tags: [] }], example_tags: [] })}\n`,
        'latin1',
      ),
    )
    expect(() => loadHealthBench(latin)).toThrow(
      /^loadHealthBench\(".*health\.jsonl"\): cannot read .*health\.jsonl: not UTF-8: byte 0xe9 .* Latin-1/,
    )
    const gz = join(dir, 'humaneval_pro.json')
    writeFileSync(gz, gzipSync('[]'))
    expect(() => loadHumanEvalPro(gz)).toThrow(
      /cannot read .*humaneval_pro\.json: not UTF-8 text but gzip-compressed .*gunzip/,
    )
  })
})
