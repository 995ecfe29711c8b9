/** Whether a model endpoint is on this machine, where a model missing from the price table costs nothing. */
export function isLoopbackUrl(raw: string): boolean {
  let host: string
  try {
    host = new URL(raw).hostname.toLowerCase()
  } catch {
    return false
  }
  return host === 'localhost' || host.endsWith('.localhost') || /^127(?:\.\d{1,3}){3}$/.test(host) || host === '[::1]' || host === '0.0.0.0'
}
