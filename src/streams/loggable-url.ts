const CREDENTIAL_PARAM = /key|token|secret|password|passwd|auth|sig|session/i

/**
 * A URL fit for a log line: no `user:password@`, and credential-looking query values
 * (`api_key`, `token`, `sig`, ...) replaced by `[redacted]`. Unparseable text is returned as is.
 */
export function loggableUrl(raw: string): string {
  let url: URL
  try {
    url = new URL(raw)
  } catch {
    return raw
  }
  url.username = ''
  url.password = ''
  for (const name of [...url.searchParams.keys()]) {
    if (CREDENTIAL_PARAM.test(name)) url.searchParams.set(name, '[redacted]')
  }
  return url.href
}
