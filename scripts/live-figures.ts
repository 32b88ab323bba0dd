// The live view's figures at scale: how long `seqk view` takes to answer its page and its event
// stream for a run directory (e.g. the 100 000 trajectories of scripts/big-run.ts), and how many
// bytes a client receives before it has the whole state.
//
//   npx tsx scripts/live-figures.ts /tmp/big-run [path/to/report/live/server.ts]
//
// First paint is the page's first response (rendered with the state on the server); "state" is the
// stream up to its first event (a snapshot), or, for a server that replays its log, up to `ended`;
// "caught up" is when every line written before the server started is read, and while it catches
// up the page and a page of trajectories are asked for one after the other (median and slowest);
// then one page of the last cell's trajectories (what the page fetches when a cell is opened), and
// the process's memory.
// Prints one JSON line (test/report-live-scale.bench.ts reads it).
import { request } from 'node:http'
import { resolve } from 'node:path'
import type * as LiveServerModule from '../src/report/live/server.js'

const [dir = '/tmp/big-run', serverModule = new URL('../src/report/live/server.ts', import.meta.url).pathname] =
  process.argv.slice(2)
const { startLiveServer } = (await import(resolve(serverModule))) as typeof LiveServerModule

function get(
  url: string,
  until: (body: string) => boolean,
): Promise<{ ms: number; bytes: number; firstByteMs: number }> {
  const t0 = performance.now()
  return new Promise((done, fail) => {
    const req = request(url, { headers: { host: new URL(url).host } }, (res) => {
      let body = ''
      let bytes = 0
      let firstByteMs = -1
      res.setEncoding('utf8')
      res.on('data', (chunk: string) => {
        if (firstByteMs < 0) firstByteMs = performance.now() - t0
        bytes += Buffer.byteLength(chunk)
        body += chunk
        if (until(body)) {
          req.destroy()
          done({ ms: performance.now() - t0, bytes, firstByteMs })
        }
        if (body.length > 1 << 20) body = body.slice(-4096)
      })
      res.on('end', () => done({ ms: performance.now() - t0, bytes, firstByteMs }))
    })
    req.on('error', (e) => (e.message.includes('socket hang up') ? undefined : fail(e)))
    req.end()
  })
}

const cpuMs = (since: NodeJS.CpuUsage) => {
  const { user, system } = process.cpuUsage(since)
  return Math.round((user + system) / 1000)
}
const t0 = performance.now()
const cpu0 = process.cpuUsage()
const server = await startLiveServer({ target: dir, port: 0, pollMs: 60_000 })
const listening = performance.now() - t0
const page = await get(server.url, (b) => b.includes('</html>'))
// On a loaded machine the wall time is mostly waiting for a core: the CPU the process spent is the steadier figure.
const firstPaintCpuMs = cpuMs(cpu0)
const stream = await get(`${server.url}events`, (b) => /"type":"(snapshot|ended)"/.test(b) && b.endsWith('\n\n'))
const liveState = () =>
  (server.live as { snapshot?: () => { snapshot: { reading: unknown; cells: { key: string }[] } } }).snapshot?.()
    .snapshot
// While catching up, what a person sees: the page, and a page of the first cell's trajectories,
// asked one after the other (each answered between the server's steps of reading).
const whileCatchingUp: { page: number[]; trajectories: number[] } = { page: [], trajectories: [] }
let catching = true
const probe = (async () => {
  while (catching) {
    const state = liveState()
    if (!state || state.reading === null) break
    whileCatchingUp.page.push((await get(server.url, (b) => b.includes('</html>'))).ms)
    const first = liveState()?.cells[0]?.key
    if (first)
      whileCatchingUp.trajectories.push(
        (await get(`${server.url}trajectories?cell=${encodeURIComponent(first)}&offset=0&limit=50`, () => false)).ms,
      )
  }
})()
// Until every line written before the server started is read (a server that reads all before it listens: at once).
const caughtUp = await new Promise<number>((done) => {
  const check = () => {
    const state = liveState()
    if (!state || state.reading === null) done(performance.now() - t0)
    else setTimeout(check, 20)
  }
  check()
})
catching = false
await probe
const max = (xs: number[]) => (xs.length === 0 ? -1 : Math.round(Math.max(...xs)))
const median = (xs: number[]) => (xs.length === 0 ? -1 : Math.round([...xs].sort((a, b) => a - b)[xs.length >> 1]!))
const caughtUpCpuMs = cpuMs(cpu0)
const rssCaughtUpMb = process.memoryUsage().rss / 2 ** 20
const cells = (server.live as { snapshot?: () => { snapshot: { cells: { key: string }[] } } }).snapshot?.().snapshot
  .cells
const last = cells?.at(-1)?.key
const trajectories = last
  ? await get(`${server.url}trajectories?cell=${encodeURIComponent(last)}&offset=0&limit=50`, () => false)
  : { ms: -1, bytes: 0 }
await server.close()
const mb = (n: number) => Math.round(n * 10) / 10
process.stdout.write(
  `${JSON.stringify({ listeningMs: Math.round(listening), firstPaintMs: Math.round(listening + page.ms), firstPaintCpuMs, pageBytes: page.bytes, stateMs: Math.round(stream.ms), stateBytes: stream.bytes, caughtUpMs: Math.round(caughtUp), caughtUpCpuMs, pagesWhileCatchingUp: whileCatchingUp.page.length, pageWhileCatchingUpMedianMs: median(whileCatchingUp.page), pageWhileCatchingUpMaxMs: max(whileCatchingUp.page), trajectoriesWhileCatchingUpMaxMs: max(whileCatchingUp.trajectories), pageOfTrajectoriesMs: Math.round(trajectories.ms), pageOfTrajectoriesBytes: trajectories.bytes, rssCaughtUpMb: mb(rssCaughtUpMb), maxRssMb: mb(process.resourceUsage().maxRSS / 1024) })}\n`,
)
