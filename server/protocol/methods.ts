// Which request methods change nothing (RFC 9110 §9.2.1): they need only read access, and a
// browser may send them from another origin.

/** GET, HEAD and OPTIONS change nothing; every other method is a write. */
export function isSafeMethod(method: string): boolean {
  return method === "GET" || method === "HEAD" || method === "OPTIONS";
}
