import { createHash } from 'node:crypto'
import { appendFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { request, type IncomingHttpHeaders } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { line, liveCell } from '../../../test/live-fixtures.js'
import { refusal, startLiveServer, type LiveServer } from './server.js'

interface Reply {
  status: number
  headers: IncomingHttpHeaders
  body: string
}

/** One raw request: the path and headers exactly as given (no URL normalisation). */
function get(port: number, path: string, headers: Record<string, string> = {}, method = 'GET'): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = request(
      { host: '127.0.0.1', port, path, method, headers: { host: `127.0.0.1:${port}`, ...headers } },
      (res) => {
        let body = ''
        res.setEncoding('utf8')
        res.on('data', (chunk: string) => {
          body += chunk
          // An event stream never ends: its first event (the snapshot, or the updates a page missed) is enough.
          if (res.headers['content-type']?.startsWith('text/event-stream') && /\ndata: .*\n\n/.test(body)) req.destroy()
        })
        const done = () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body })
        res.on('end', done)
        res.on('close', done)
      },
    )
    req.on('error', reject)
    req.end()
  })
}

describe('the live server', () => {
  let runs: string
  let server: LiveServer
  let dir: string
  beforeAll(async () => {
    runs = mkdtempSync(join(tmpdir(), 'seqk-live-server-'))
    dir = join(runs, '20260101-000000-aaaaaa')
    mkdirSync(dir)
    writeFileSync(join(dir, 'cells.jsonl'), line(liveCell({ runId: 'r' }).start))
    writeFileSync(join(runs, 'secret.txt'), 'not for the browser')
    server = await startLiveServer({ target: runs, port: 0, pollMs: 50 })
  })
  afterAll(async () => {
    await server?.close()
    rmSync(runs, { recursive: true, force: true })
  })

  it('listens on 127.0.0.1 only, at a port the system picked', () => {
    expect(server.url).toBe(`http://127.0.0.1:${server.port}/`)
    expect(server.port).toBeGreaterThan(0)
  })

  it('serves the page with a strict policy naming the hash of its one inline script', async () => {
    const reply = await get(server.port, '/')
    expect(reply.status).toBe(200)
    const csp = reply.headers['content-security-policy']!
    expect(csp).toContain("default-src 'none'")
    expect(csp).toContain("connect-src 'self'")
    expect(csp).toContain("frame-ancestors 'none'")
    const scripts = [...reply.body.matchAll(/<script>([\s\S]*?)<\/script>/g)].map((m) => m[1]!)
    expect(scripts).toHaveLength(1)
    expect(csp).toContain(`'sha256-${createHash('sha256').update(scripts[0]!).digest('base64')}'`)
    expect(reply.body).not.toMatch(/<(script|link)[^>]+(src|href)="(?!data:)/)
    expect(reply.headers['access-control-allow-origin']).toBeUndefined()
    expect(reply.headers['x-content-type-options']).toBe('nosniff')
  })

  it('streams the run as server-sent events: the state first, then what changed', async () => {
    const reply = await get(server.port, '/events')
    expect(reply.status).toBe(200)
    expect(reply.headers['content-type']).toBe('text/event-stream; charset=utf-8')
    expect(reply.body).toMatch(
      /^retry: 1000\n\nid: 2\ndata: \{"type":"snapshot","snapshot":\{"runId":"20260101-000000-aaaaaa"/,
    )
    // A page rendered with the state at event 1 (or reconnecting after it) gets only the update after it.
    const resumed = await get(server.port, '/events?since=1')
    expect(resumed.body).toMatch(/^retry: 1000\n\nid: 2\ndata: \{"type":"update","cells":\[/)
    expect((await get(server.port, '/events', { 'last-event-id': '1' })).body).toContain('"type":"update"')
  })

  it("renders the page with the state at request time and pages a cell's trajectories on demand", async () => {
    const page = await get(server.port, '/')
    expect(page.body).toContain('<span class="count">0/2</span>')
    expect(page.body).toMatch(/data-last-id="\d+"/)
    const key = /data-key="([^"]+)"/.exec(page.body)![1]!.replace(/&#39;/g, "'")
    const empty = JSON.parse((await get(server.port, `/trajectories?cell=${encodeURIComponent(key)}&limit=5`)).body)
    expect(empty).toEqual({ total: 0, items: [] })
    expect(JSON.parse((await get(server.port, '/trajectories?cell=nope&offset=x')).body)).toEqual({
      total: 0,
      items: [],
    })
  })

  it('serves the report only once it is complete', async () => {
    expect((await get(server.port, '/report')).status).toBe(404)
    writeFileSync(join(dir, 'summary.json'), '{}')
    writeFileSync(join(dir, 'report.html'), '<!doctype html><html><body>the report</body></html>\n')
    server.live.tick()
    const reply = await get(server.port, '/report')
    expect(reply.status).toBe(200)
    expect(reply.body).toContain('the report')
    expect(reply.headers['content-security-policy']).toContain("frame-ancestors 'none'")
  })

  it.each([
    '/../secret.txt',
    '/..%2fsecret.txt',
    '/%2e%2e/secret.txt',
    '/report/../../secret.txt',
    '/report.html',
    '/20260101-000000-aaaaaa/cells.jsonl',
    '/cells.jsonl',
    '/events/../secret.txt',
    '//etc/passwd',
    '/favicon.ico',
  ])('answers 404 to anything but its routes: %s', async (path) => {
    const reply = await get(server.port, path)
    expect(reply.status).toBe(404)
    expect(reply.body).not.toContain('not for the browser')
  })

  it('refuses a foreign Host (DNS rebinding), a foreign Origin and methods but GET', async () => {
    for (const host of [
      'evil.example',
      `evil.example:${server.port}`,
      `127.0.0.1.evil.example:${server.port}`,
      `localhost:${server.port + 1}`,
      `[::1]:${server.port}`,
    ]) {
      expect([host, (await get(server.port, '/', { host })).status]).toEqual([host, 403])
    }
    expect((await get(server.port, '/', { host: `localhost:${server.port}` })).status).toBe(200)
    expect((await get(server.port, '/events', { origin: 'http://evil.example' })).status).toBe(403)
    expect((await get(server.port, '/', { 'sec-fetch-site': 'cross-site' })).status).toBe(403)
    const post = await get(server.port, '/', {}, 'POST')
    expect([post.status, post.headers.allow]).toEqual([405, 'GET, HEAD'])
  })

  it('names the fix in a refusal', () => {
    expect(refusal({ host: 'evil.example' }, 4180)).toBe(
      'Host "evil.example" is not this server: open http://127.0.0.1:4180/ or http://localhost:4180/',
    )
    expect(refusal({}, 4180)).toContain('Host "" is not this server')
    expect(refusal({ host: 'LOCALHOST:4180', origin: 'http://LOCALHOST:4180' }, 4180)).toBeNull()
  })

  it('sends new lines to an open stream as they are appended', async () => {
    const cell = liveCell({ runId: 'r' })
    const body = await new Promise<string>((resolve, reject) => {
      const req = request(
        { host: '127.0.0.1', port: server.port, path: '/events', headers: { host: `localhost:${server.port}` } },
        (res) => {
          let text = ''
          res.setEncoding('utf8')
          res.on('data', (chunk: string) => {
            text += chunk
            if (text.includes('"type":"snapshot"') && !text.includes('"errors":[{'))
              appendFileSync(join(dir, 'trajectories.jsonl'), line(cell.trajectory('t/1', 0, 'error', 'boom')))
            if (text.includes('"errors":[{')) {
              req.destroy()
              resolve(text)
            }
          })
        },
      )
      req.on('error', reject)
      req.end()
    })
    expect(body).toContain('"status":"error","attempts"')
    expect(body).toContain('"message":"boom"')
  })
})
