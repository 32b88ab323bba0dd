/**
 * Benchmark files are read as UTF-8, strictly. Node's `readFileSync(path, 'utf8')` turns every
 * invalid byte into U+FFFD without a word, so a Latin-1 file loaded with its accents replaced and
 * the task hashes changed; a UTF-16 file or a gzip failed later as "not JSON". Here a file that is
 * not UTF-8 is refused, naming what it is (gzip, zip, UTF-16, UTF-32, Latin-1 or Windows-1252, or
 * the first invalid byte, its line and offset) and how to convert it. A UTF-8 byte-order mark is
 * dropped. A task file of one's own (loadTasks) is also read as UTF-16 when a byte-order mark says
 * so ({@link decodeText}); the published benchmarks are UTF-8, so another encoding there is a bad copy.
 */
import { readFileSync } from 'node:fs'
import { displayPath } from '../verifiers/rubric/benchmark-files.js'

/** A file whose bytes are not UTF-8 text: the message names what was found and the fix. */
export class NotUtf8Error extends Error {
  constructor(
    message: string,
    /** The 1-based line of the first invalid byte, when the bytes are text with one bad sequence. */
    readonly line?: number,
    /** The 0-based byte offset of that byte in the file. */
    readonly offset?: number,
  ) {
    super(message)
    this.name = 'NotUtf8Error'
  }
}

const SIGNATURES: [bytes: number[], what: string, fix: string][] = [
  [[0x1f, 0x8b], 'gzip-compressed (it starts with the gzip magic bytes 1f 8b)', 'decompress it first: gunzip FILE'],
  [[0x50, 0x4b, 0x03, 0x04], 'a zip archive (it starts with PK)', 'unzip it and pass the file inside'],
  [[0x28, 0xb5, 0x2f, 0xfd], 'zstd-compressed', 'decompress it first: zstd -d FILE'],
  [[0x42, 0x5a, 0x68], 'bzip2-compressed', 'decompress it first: bunzip2 FILE'],
  [
    [0xff, 0xfe, 0x00, 0x00],
    'UTF-32 LE text (byte-order mark ff fe 00 00)',
    're-save it as UTF-8: iconv -f UTF-32 -t UTF-8 FILE',
  ],
  [
    [0x00, 0x00, 0xfe, 0xff],
    'UTF-32 BE text (byte-order mark 00 00 fe ff)',
    're-save it as UTF-8: iconv -f UTF-32 -t UTF-8 FILE',
  ],
  [[0xff, 0xfe], 'UTF-16 LE text (byte-order mark ff fe)', 're-save it as UTF-8: iconv -f UTF-16 -t UTF-8 FILE'],
  [[0xfe, 0xff], 'UTF-16 BE text (byte-order mark fe ff)', 're-save it as UTF-8: iconv -f UTF-16 -t UTF-8 FILE'],
]

/**
 * The text of `bytes` as strict UTF-8, or a NotUtf8Error naming what they are instead. `name`
 * stands for the file in the fix (`iconv … name`).
 *
 * @example
 * decodeUtf8(Buffer.from([0x63, 0x61, 0x66, 0xe9]), 'tasks.jsonl')
 * // NotUtf8Error: not UTF-8: byte 0xe9 at byte 3 (line 1, byte 4 of the line) is not valid UTF-8; it looks like Latin-1 (ISO-8859-1) or Windows-1252: re-save it as UTF-8: iconv -f WINDOWS-1252 -t UTF-8 tasks.jsonl
 */
export function decodeUtf8(bytes: Uint8Array, name: string): string {
  for (const [signature, what, fix] of SIGNATURES) {
    if (signature.every((b, i) => bytes[i] === b))
      throw new NotUtf8Error(`not UTF-8 text but ${what}; ${fix.replace('FILE', name)}`)
  }
  const start = bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? 3 : 0
  const body = bytes.subarray(start)
  // NULs are valid UTF-8, but a NUL in every other byte is ASCII-heavy UTF-16 without a byte-order mark.
  const utf16 = nulEveryOtherByte(body)
  if (utf16)
    throw new NotUtf8Error(
      `not UTF-8: it has a NUL in every other byte: UTF-16 ${utf16} without a byte-order mark? Re-save it as UTF-8: iconv -f UTF-16${utf16} -t UTF-8 ${name}`,
    )
  try {
    return new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(body)
  } catch {
    const invalid = firstInvalid(body, name)
    // The offset in the file, byte-order mark included, as `xxd` or a hex editor shows it.
    throw new NotUtf8Error(`not UTF-8: ${invalid.text(start)}`, invalid.line, invalid.at + start)
  }
}

/**
 * The text of a file someone wrote by hand (a task file): UTF-8 as {@link decodeUtf8} reads it,
 * and UTF-16 with a byte-order mark, which says which it is, decoded strictly (Windows tools save
 * "Unicode" so). Everything else is refused as decodeUtf8 refuses it: UTF-16 without a mark is a
 * guess, so it is named with the fix rather than read.
 *
 * @example
 * decodeText(Buffer.from('\ufeff{"id":"a"}', 'utf16le'), 'tasks.jsonl') // => '{"id":"a"}'
 */
export function decodeText(bytes: Uint8Array, name: string): string {
  const utf16 =
    bytes[0] === 0xff && bytes[1] === 0xfe && !(bytes[2] === 0 && bytes[3] === 0)
      ? 'utf-16le'
      : bytes[0] === 0xfe && bytes[1] === 0xff
        ? 'utf-16be'
        : undefined
  if (!utf16) return decodeUtf8(bytes, name)
  if (bytes.length % 2 !== 0)
    throw new NotUtf8Error(
      `not valid ${utf16.toUpperCase()}: it has a byte-order mark but an odd number of bytes (${bytes.length}), so it was cut short; re-save it as UTF-8`,
    )
  try {
    return new TextDecoder(utf16, { fatal: true, ignoreBOM: false }).decode(bytes)
  } catch {
    throw new NotUtf8Error(
      `not valid ${utf16.toUpperCase()}: it has a byte-order mark but a lone surrogate; re-save it as UTF-8: iconv -f UTF-16 -t UTF-8 ${name}`,
    )
  }
}

/** `LE` or `BE` when more than a quarter of the first 4 kB are NULs at odd or even offsets. */
function nulEveryOtherByte(bytes: Uint8Array): 'LE' | 'BE' | undefined {
  const sample = bytes.subarray(0, 4096)
  let odd = 0
  let even = 0
  for (let i = 0; i < sample.length; i++) {
    if (sample[i] !== 0) continue
    if (i % 2 === 0) even++
    else odd++
  }
  if (Math.max(odd, even) <= sample.length / 4) return undefined
  return odd > even ? 'LE' : 'BE'
}

/** Where the bytes stop being UTF-8 (line, offset in `bytes`), and the sentence naming it and what they look like. */
function firstInvalid(bytes: Uint8Array, name: string): { line: number; at: number; text: (shift: number) => string } {
  let line = 1
  let singles = 0
  let at = -1
  for (let i = 0; i < bytes.length;) {
    const b = bytes[i]!
    const length = sequenceLength(bytes, i)
    if (length === 0) {
      if (at < 0) at = i
      // A high byte alone, between ASCII: the shape of Latin-1 and Windows-1252.
      if (b >= 0x80 && (i === 0 || bytes[i - 1]! < 0x80) && (bytes[i + 1] === undefined || bytes[i + 1]! < 0x80))
        singles++
      i++
      continue
    }
    if (at < 0 && b === 0x0a) line++
    i += length
  }
  const latin =
    singles > 0
      ? `; it looks like Latin-1 (ISO-8859-1) or Windows-1252: re-save it as UTF-8: iconv -f WINDOWS-1252 -t UTF-8 ${name}`
      : `; re-save it as UTF-8`
  // The byte's place in its line too, so an editor that counts bytes can jump to it.
  const lineStart = at === 0 ? 0 : bytes.lastIndexOf(0x0a, at - 1) + 1
  return {
    line,
    at,
    text: (shift) =>
      `byte 0x${bytes[at]!.toString(16).padStart(2, '0')} at byte ${at + shift} (line ${line}, byte ${at - lineStart + 1} of the line) is not valid UTF-8${latin}`,
  }
}

/** The length of the valid UTF-8 sequence at `i`, or 0 when there is none. */
function sequenceLength(bytes: Uint8Array, i: number): number {
  const b = bytes[i]!
  if (b < 0x80) return 1
  const cont = (k: number) => bytes[i + k] !== undefined && (bytes[i + k]! & 0xc0) === 0x80
  if (b >= 0xc2 && b <= 0xdf) return cont(1) ? 2 : 0
  if (b >= 0xe0 && b <= 0xef) {
    const second = bytes[i + 1] ?? 0
    // No overlongs (e0 80–9f) and no surrogates (ed a0–bf).
    if ((b === 0xe0 && second < 0xa0) || (b === 0xed && second >= 0xa0)) return 0
    return cont(1) && cont(2) ? 3 : 0
  }
  if (b >= 0xf0 && b <= 0xf4) {
    const second = bytes[i + 1] ?? 0
    if ((b === 0xf0 && second < 0x90) || (b === 0xf4 && second >= 0x90)) return 0
    return cont(1) && cont(2) && cont(3) ? 4 : 0
  }
  return 0
}

/**
 * Reads a benchmark file as strict UTF-8 (see {@link decodeUtf8}), or throws the loader's own
 * error (`toError`) naming the call (`where`), the file and the fix: where to get it when it is
 * missing (`hint`), what it is when it is not UTF-8.
 *
 * @example
 * const text = readBenchmarkText('data/healthbench.jsonl', 'loadHealthBench("data/healthbench.jsonl")', 'download it from github.com/openai/simple-evals', (m) => new Error(m))
 */
export function readBenchmarkText(
  path: string | URL,
  where: string,
  hint: string,
  toError: (message: string) => Error,
  fileName = 'the file',
): string {
  let bytes: Buffer
  try {
    bytes = readFileSync(path)
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    const why =
      code === 'ENOENT'
        ? `no such file. ${hint} (relative paths resolve from ${process.cwd()})`
        : code === 'EISDIR'
          ? `this is a directory; pass the path of ${fileName} inside it`
          : (error as Error).message
    throw toError(`${where}: cannot read ${displayPath(path)}: ${why}`)
  }
  try {
    return decodeUtf8(bytes, displayPath(path))
  } catch (error) {
    throw toError(`${where}: cannot read ${displayPath(path)}: ${(error as Error).message}`)
  }
}
