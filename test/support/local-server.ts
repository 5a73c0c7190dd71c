/** A throwaway HTTP server on 127.0.0.1 for the recording fakes of provider APIs. */
import http from 'node:http'
import type { AddressInfo } from 'node:net'

export interface LocalServer {
  /** `http://127.0.0.1:<port>`, no trailing slash. */
  readonly url: string
  close(): Promise<void>
}

/** Listens on a free port of 127.0.0.1 and hands each request to `handle` once its whole body is read. */
export async function serveLocal(
  handle: (req: http.IncomingMessage, res: http.ServerResponse, body: Buffer) => void,
): Promise<LocalServer> {
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => handle(req, res, Buffer.concat(chunks)))
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  }
}
