const CREDENTIAL_HEADER = /auth|key|token|secret|cookie/i

/**
 * Values of caller-supplied headers that carry credentials, to redact from every error: the
 * whole value and, for `Bearer <token>`-style values, the token alone (a server may echo it).
 */
export function secretHeaderValues(headers: Record<string, string> | undefined): string[] {
  return Object.entries(headers ?? {})
    .filter(([name]) => CREDENTIAL_HEADER.test(name))
    .flatMap(([, value]) => [value, ...value.split(/\s+/).filter((part) => part.length >= 8)])
}
