/** A request target split into its path and its query parameters. */
export interface RequestTarget {
  pathname: string;
  query: URLSearchParams;
}

/**
 * Targets WHATWG URL parsing leaves as they are: an origin-form path and query of characters it neither
 * escapes nor rewrites. Dot segments (`/a/../b`, `/a/%2e%2e/b`) are left to URL, which resolves them.
 */
const PLAIN_TARGET = /^(?!.*%2e)\/[\w\-~!$&'()*+,;=:@%/]*(?:\?[\w\-~!$&'()*+,;=:@%/?.]*)?$/i;

const NO_QUERY = new URLSearchParams();

/**
 * The request target's path and query, as `new URL` reads them. An origin-form target (`/path?q`) is always
 * read as a path, so `//x/y` stays a path instead of naming host `x`; a target that is no URL at all
 * (`http://[`) is null. Plain targets, nearly all of them, are split without building a URL.
 */
export function parseRequestTarget(target: string): RequestTarget | null {
  if (PLAIN_TARGET.test(target)) {
    const q = target.indexOf("?");
    if (q < 0) return { pathname: target, query: NO_QUERY };
    return { pathname: target.slice(0, q), query: new URLSearchParams(target.slice(q + 1)) };
  }
  try {
    const url = target.startsWith("/") ? new URL(`http://gateway${target}`) : new URL(target);
    return { pathname: url.pathname, query: url.searchParams };
  } catch {
    return null;
  }
}
