/**
 * Follows a file that another process appends lines to (a run's `cells.jsonl`,
 * `trajectories.jsonl`) by byte offset: each `read()` returns the complete lines added since the
 * last one. A torn last line (a write in progress, or a crash mid-write) stays unread until its
 * newline arrives; a file that does not exist yet reads as empty; a file that shrank below what was
 * read, or was replaced by another file, is reported as `reset` and read again from its start.
 */
import { closeSync, fstatSync, openSync, readSync, statSync } from 'node:fs'

/** What one `read()` found. */
export interface TailRead {
  /** Complete lines added since the last read, without their newline, with their 1-based line numbers. */
  lines: { text: string; line: number }[]
  /** The file was truncated below what had been read, or replaced: `lines` start again at line 1. */
  reset: boolean
  /** The file's size when read. */
  size: number
  /** `maxBytes` stopped the read before the end of the file: more is there to read. */
  more: boolean
}

/** Bytes read at a time: a large file is read in pieces, never whole. */
const CHUNK = 1024 * 1024

/**
 * A tail of one file.
 *
 * @example
 * const tail = new LineTail('.seqk/runs/20261201-101500-9f2c4a/trajectories.jsonl')
 * for (const { text } of tail.read().lines) handle(JSON.parse(text))
 */
export class LineTail {
  readonly path: string
  /** Bytes of complete lines consumed so far. */
  private offset = 0
  /** Bytes read after the last newline (a line not yet complete). */
  private pending: Buffer = Buffer.alloc(0)
  private line = 0
  private inode: number | undefined

  constructor(path: string) {
    this.path = path
  }

  /** Bytes of complete lines read so far. */
  get position(): number {
    return this.offset
  }

  /** Reads what was appended since the last call, at most about `maxBytes` of it (a large file is caught up in pieces). */
  read(maxBytes = Number.POSITIVE_INFINITY): TailRead {
    let fd: number
    try {
      fd = openSync(this.path, 'r')
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { lines: [], reset: false, size: 0, more: false }
      throw error
    }
    try {
      const stat = fstatSync(fd)
      let reset = false
      const readTo = this.offset + this.pending.length
      if ((this.inode !== undefined && stat.ino !== this.inode) || stat.size < this.offset) {
        // Rewritten or replaced: what was read no longer describes the file.
        reset = this.offset > 0 || this.pending.length > 0
        this.offset = 0
        this.pending = Buffer.alloc(0)
        this.line = 0
      } else if (stat.size < readTo) {
        // Only the torn tail was cut (a resumed run does so before it appends): read on from the last newline.
        this.pending = Buffer.alloc(0)
      }
      this.inode = stat.ino
      const lines: TailRead['lines'] = []
      const buffer = Buffer.alloc(CHUNK)
      let position = this.offset + this.pending.length
      const stop = Math.min(stat.size, position + maxBytes)
      while (position < stop) {
        const n = readSync(fd, buffer, 0, Math.min(CHUNK, stop - position), position)
        if (n === 0) break
        position += n
        let data =
          this.pending.length > 0 ? Buffer.concat([this.pending, buffer.subarray(0, n)]) : buffer.subarray(0, n)
        let start = 0
        for (let at = data.indexOf(0x0a); at >= 0; at = data.indexOf(0x0a, start)) {
          this.line += 1
          const text = data.subarray(start, at).toString('utf8')
          if (text.trim() !== '') lines.push({ text, line: this.line })
          this.offset += at + 1 - start
          start = at + 1
        }
        data = data.subarray(start)
        // Copied: `buffer` is reused by the next read.
        this.pending = Buffer.from(data)
      }
      return { lines, reset, size: stat.size, more: stop < stat.size }
    } finally {
      closeSync(fd)
    }
  }
}

/**
 * Whether a file exists and is a regular file (a directory or a broken link is not).
 *
 * @example
 * if (isFile(join(runDir, 'summary.json'))) markEnded()
 */
export function isFile(path: string): boolean {
  try {
    return statSync(path).isFile()
  } catch {
    return false
  }
}
