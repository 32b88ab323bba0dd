// Shared by the endpoint tests and benches.
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'

/** A port nothing listens on: bound once to learn a free one, then closed. */
export async function deadPort(): Promise<number> {
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  await new Promise<void>((resolve) => server.close(() => resolve()))
  return port
}
