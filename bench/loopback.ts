/** Loopback servers for the benchmarks: port 0 on 127.0.0.1, never the network. */
import type { Server } from 'node:http'

/** Starts listening on a free loopback port and returns the base URL. */
export async function listen(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const address = server.address()
  if (address === null || typeof address === 'string') throw new Error('expected a TCP address')
  return `http://127.0.0.1:${address.port}`
}

/** Closes the server and every connection still open on it (keep-alive sockets included). */
export async function close(server: Server): Promise<void> {
  server.closeAllConnections()
  await new Promise<void>((resolve) => server.close(() => resolve()))
}
