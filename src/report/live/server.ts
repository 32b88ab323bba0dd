/**
 * The HTTP server of `seqk view`, on Node's http module: four routes on 127.0.0.1 and nothing
 * else. `/` is the live page (rendered with the state at request time), `/events` its server-sent
 * event stream (a snapshot, then updates), `/trajectories` a page of one cell's trajectories (JSON),
 * `/report` the shown run's finished `report.html`. No request path reaches the filesystem, so there is nothing to traverse;
 * a Host header other than localhost or 127.0.0.1 is refused (a DNS-rebinding page would send its
 * own name), and no CORS header is ever sent, so other origins cannot read a response.
 */
import { createReadStream } from 'node:fs'
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { LiveRun, type LiveRunOptions, type LoggedEvent } from './live-run.js'
import { livePage } from './page.js'

/** The only address the server listens on: this machine, never the network. */
export const LIVE_HOST = '127.0.0.1'
const ALLOWED_HOSTS = new Set(['localhost', '127.0.0.1'])
/** A comment line on every open stream this often, so proxies and browsers keep it open. */
const HEARTBEAT_MS = 15_000

export interface LiveServerOptions extends LiveRunOptions {
  /** A runs directory, its `latest` file, or one run directory. */
  target: string
  /** Port on 127.0.0.1; 0 lets the system pick a free one. */
  port: number
}

export interface LiveServer {
  /** `http://127.0.0.1:<port>/`. */
  url: string
  port: number
  live: LiveRun
  /** Ends every event stream, stops watching, closes the server. */
  close(): Promise<void>
}

const BASE_HEADERS = {
  'Cache-Control': 'no-store',
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
  'Cross-Origin-Resource-Policy': 'same-origin',
}

function plain(response: ServerResponse, status: number, text: string, extra: Record<string, string> = {}): void {
  response.writeHead(status, { ...BASE_HEADERS, 'Content-Type': 'text/plain; charset=utf-8', ...extra })
  response.end(`${text}\n`)
}

/**
 * Why a request is refused before routing, or null: a foreign Host (DNS rebinding) or a
 * cross-site fetch.
 *
 * @example
 * refusal({ host: 'evil.example:4180' }, 4180) // => 'Host "evil.example:4180" is not this server: …'
 */
export function refusal(headers: IncomingMessage['headers'], port: number): string | null {
  const host = headers.host ?? ''
  const match = /^([^:]+|\[[^\]]+\])(?::(\d+))?$/.exec(host)
  const name = match?.[1]?.toLowerCase()
  const hostOk =
    name !== undefined && ALLOWED_HOSTS.has(name) && (match?.[2] === undefined || Number(match[2]) === port)
  if (!hostOk) return `Host "${host}" is not this server: open http://127.0.0.1:${port}/ or http://localhost:${port}/`
  const origin = headers.origin
  if (origin !== undefined && origin !== `http://${host}`)
    return `requests from ${origin} are not served (only this page's own origin)`
  if (headers['sec-fetch-site'] === 'cross-site') return 'cross-site requests are not served'
  return null
}

function sse(response: ServerResponse, logged: LoggedEvent): void {
  response.write(`id: ${logged.id}\ndata: ${JSON.stringify(logged.event)}\n\n`)
}

/**
 * Starts the live view's server on 127.0.0.1.
 *
 * @example
 * const server = await startLiveServer({ target: '.seqk/runs', port: 0 })
 * console.log(`open ${server.url}`)
 * await server.close()
 */
export async function startLiveServer(options: LiveServerOptions): Promise<LiveServer> {
  const live = new LiveRun(options.target, options)
  const streams = new Set<ServerResponse>()
  let port = options.port

  const handle = (request: IncomingMessage, response: ServerResponse): void => {
    const refused = refusal(request.headers, port)
    if (refused !== null) return plain(response, 403, refused)
    if (request.method !== 'GET' && request.method !== 'HEAD')
      return plain(response, 405, `${request.method ?? ''} is not served: only GET`, { Allow: 'GET, HEAD' })
    // The path is compared whole, never joined to a directory.
    const url = new URL(request.url ?? '/', 'http://localhost')
    const path = url.pathname
    if (path === '/') {
      const { id, snapshot } = live.snapshot()
      const page = livePage(snapshot, id)
      response.writeHead(200, {
        ...BASE_HEADERS,
        'Content-Type': 'text/html; charset=utf-8',
        'Content-Security-Policy': page.csp,
      })
      return void response.end(request.method === 'HEAD' ? undefined : page.html)
    }
    if (path === '/trajectories') {
      const count = (name: string, fallback: number, max: number) => {
        const n = Number(url.searchParams.get(name) ?? fallback)
        return Number.isSafeInteger(n) && n >= 0 ? Math.min(n, max) : fallback
      }
      const page = live.page(
        url.searchParams.get('cell') ?? '',
        count('offset', 0, Number.MAX_SAFE_INTEGER),
        count('limit', 50, 500),
      )
      response.writeHead(200, { ...BASE_HEADERS, 'Content-Type': 'application/json; charset=utf-8' })
      return void response.end(request.method === 'HEAD' ? undefined : JSON.stringify(page))
    }
    if (path === '/report') {
      const report = live.reportPath
      if (report === null)
        return plain(response, 404, 'no report yet: the run has not written report.html (it does when it ends)')
      // The report carries its own policy (a meta element); this adds what only a header can say.
      response.writeHead(200, {
        ...BASE_HEADERS,
        'Content-Type': 'text/html; charset=utf-8',
        'Content-Security-Policy': "frame-ancestors 'none'; connect-src 'none'; base-uri 'none'; form-action 'none'",
      })
      if (request.method === 'HEAD') return void response.end()
      createReadStream(report)
        .on('error', () => response.destroy())
        .pipe(response)
      return
    }
    if (path === '/events') {
      response.writeHead(200, {
        ...BASE_HEADERS,
        'Content-Type': 'text/event-stream; charset=utf-8',
        Connection: 'keep-alive',
      })
      if (request.method === 'HEAD') return void response.end()
      response.write('retry: 1000\n\n')
      // A reconnect sends the last id it saw; a page rendered with the state gives it in the URL.
      const last = Number(request.headers['last-event-id'] ?? url.searchParams.get('since') ?? Number.NaN)
      for (const logged of live.since(Number.isSafeInteger(last) ? last : undefined)) sse(response, logged)
      const unsubscribe = live.subscribe((logged) => sse(response, logged))
      streams.add(response)
      request.on('close', () => {
        unsubscribe()
        streams.delete(response)
      })
      return
    }
    plain(response, 404, `not found: ${path} (this server has /, /events, /trajectories and /report)`)
  }

  const server: Server = createServer(handle)
  await new Promise<void>((resolvePromise, reject) => {
    server.once('error', reject)
    server.listen(options.port, LIVE_HOST, () => {
      server.off('error', reject)
      resolvePromise()
    })
  })
  port = (server.address() as AddressInfo).port
  live.start()
  const heartbeat = setInterval(() => {
    for (const s of streams) s.write(': keep-alive\n\n')
  }, HEARTBEAT_MS)

  return {
    url: `http://${LIVE_HOST}:${port}/`,
    port,
    live,
    close: () =>
      new Promise<void>((resolvePromise) => {
        clearInterval(heartbeat)
        live.close()
        for (const s of streams) s.end()
        streams.clear()
        server.close(() => resolvePromise())
        server.closeAllConnections()
      }),
  }
}
