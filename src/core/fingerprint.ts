import { hash } from 'node:crypto'
import type { Protocol } from './schemas.js'

/**
 * JSON with object keys sorted at every depth (by UTF-16 code units, as `Array.prototype.sort`),
 * so equal values always serialise identically. Undefined properties are left out; undefined
 * array items and values JSON cannot represent become `null`.
 */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null'
  // One string built in place: every cell hashes its tasks and protocol with this.
  if (Array.isArray(value)) {
    let out = '['
    // A hole stays a hole (`[1,,3]`), as `map` and `join` always wrote it: hashes must not move.
    for (let i = 0; i < value.length; i++) out += (i === 0 ? '' : ',') + (i in value ? canonicalJson(value[i]) : '')
    return out + ']'
  }
  const record = value as Record<string, unknown>
  let out = '{'
  for (const key of Object.keys(record).sort()) {
    const item = record[key]
    if (item === undefined) continue
    out += (out.length === 1 ? '' : ',') + JSON.stringify(key) + ':' + canonicalJson(item)
  }
  return out + '}'
}

export function sha256(text: string): string {
  return hash('sha256', text, 'hex')
}

/**
 * Stable 16-hex-digit fingerprint of a protocol. A Seq@K number is only defined together with its
 * protocol, so artifacts carry it and nothing compares numbers whose fingerprints differ.
 *
 * @example
 * protocolFingerprint(protocol) // e.g. '3f9a0c1b2d4e5f60'
 */
export function protocolFingerprint(protocol: Protocol): string {
  return sha256(canonicalJson(protocol)).slice(0, 16)
}

/** The protocol fields that differ between two protocols, as dotted paths (for gate messages). */
export function protocolDifferences(a: Protocol, b: Protocol): string[] {
  const out: string[] = []
  const walk = (x: unknown, y: unknown, path: string): void => {
    const isObj = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v)
    if (isObj(x) && isObj(y)) {
      for (const key of new Set([...Object.keys(x), ...Object.keys(y)]))
        walk(x[key], y[key], path ? `${path}.${key}` : key)
    } else if (canonicalJson(x) !== canonicalJson(y)) {
      out.push(path)
    }
  }
  walk(a, b, '')
  return out
}
