/** Names that all reach this machine's loopback interface. */
const LOOPBACK = new Set(['localhost', '127.0.0.1', '::1'])

/**
 * Whether a request's `Host` header names `host`. A loopback server checks it to refuse DNS
 * rebinding: a page on evil.example whose name is made to resolve to 127.0.0.1 can reach the
 * server, but its requests still say `Host: evil.example`. Any loopback name (`localhost`,
 * `127.0.0.1`, `[::1]`) stands for any other. Total: a missing or malformed header is refused.
 */
export function hostAllowed(header: string | undefined, host: string): boolean {
  const name = hostnameOf(header)
  if (name === undefined) return false
  const wanted = unbracket(host.toLowerCase())
  return LOOPBACK.has(wanted) ? LOOPBACK.has(name) : name === wanted
}

function hostnameOf(header: string | undefined): string | undefined {
  if (!header) return undefined
  try {
    const url = new URL(`http://${header}`)
    // `Host` is a bare authority; anything with a path, user or query is not a host we serve.
    if (url.username || url.password || url.pathname !== '/' || url.search || url.hash) return undefined
    return unbracket(url.hostname)
  } catch {
    return undefined
  }
}

function unbracket(name: string): string {
  return name.startsWith('[') && name.endsWith(']') ? name.slice(1, -1) : name
}
