import { createServer, type Server, type Socket } from 'node:net'
import { gzipSync } from 'node:zlib'
import { afterEach, describe, expect, it } from 'vitest'
import { boundedFetch } from './bounded-fetch.js'

const CAP = 1000
const bounded = boundedFetch({ responseBytes: CAP, batchResultsBytes: 10 * CAP })
let server: Server | undefined
const sockets = new Set<Socket>()

/** A raw HTTP/1.1 server that answers every request with `reply` (head and body as written on the wire). */
async function serve(reply: string | Buffer): Promise<string> {
  server = createServer((socket) => {
    sockets.add(socket)
    socket.once('data', () => socket.end(reply))
  })
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve))
  const address = server.address()
  if (typeof address !== 'object' || address === null) throw new Error('no address')
  return `http://127.0.0.1:${address.port}/v1/chat/completions`
}

afterEach(async () => {
  for (const socket of sockets) socket.destroy()
  sockets.clear()
  await new Promise((resolve) => server?.close(resolve))
  server = undefined
})

const head = (headers: Record<string, string | number>) =>
  `HTTP/1.1 200 OK\r\n${Object.entries(headers)
    .map(([k, v]) => `${k}: ${v}\r\n`)
    .join('')}\r\n`

describe('boundedFetch', () => {
  it('hands a body framed by its content-length within the cap over as it came', async () => {
    const body = JSON.stringify({ choices: [] })
    const response = await bounded(await serve(head({ 'content-length': body.length }) + body))
    expect(response.headers.get('content-length')).toBe(String(body.length))
    expect(await response.text()).toBe(body)
  })

  // What the fast path rests on: the platform fetch reads no byte past content-length, so a
  // server that sends more than it declares cannot pass the cap.
  it('never reads past the declared content-length, whatever the server sends after it', async () => {
    const declared = 10
    const response = await bounded(await serve(head({ 'content-length': declared }) + 'x'.repeat(50 * CAP)))
    expect((await response.text()).length).toBe(declared)
  })

  it('refuses a declared length over the cap before reading, and counts a body with no length', async () => {
    await expect(bounded(await serve(head({ 'content-length': 2 * CAP }) + 'x'.repeat(2 * CAP)))).rejects.toThrow(
      'the response body (2 kB on the wire) is over the 1 kB cap (maxResponseBytes)',
    )
  })

  it('counts a chunked body as it is read and fails it at the cap', async () => {
    const chunk = 'x'.repeat(CAP / 2)
    const chunked = [1, 2, 3].map(() => `${chunk.length.toString(16)}\r\n${chunk}\r\n`).join('') + '0\r\n\r\n'
    const response = await bounded(await serve(head({ 'transfer-encoding': 'chunked' }) + chunked))
    await expect(response.text()).rejects.toThrow(
      'the response body (more than 1 kB decompressed) is over the 1 kB cap',
    )
  })

  it('counts a compressed body decompressed, even when its content-length is small', async () => {
    const zipped = gzipSync('x'.repeat(50 * CAP))
    expect(zipped.length).toBeLessThan(CAP)
    const reply = Buffer.concat([
      Buffer.from(head({ 'content-length': zipped.length, 'content-encoding': 'gzip' })),
      zipped,
    ])
    const response = await bounded(await serve(reply))
    expect(response.headers.get('content-encoding')).toBeNull()
    await expect(response.text()).rejects.toThrow(
      'the response body (more than 1 kB decompressed) is over the 1 kB cap',
    )
  })
})
