/** What stands in for a hidden secret. */
export const REDACTED = "REDACTED";

/**
 * Query parameters that carry a credential: presigned S3 (`X-Amz-Signature`, `X-Amz-Credential`,
 * `X-Amz-Security-Token`), GCS (`X-Goog-Signature`, `X-Goog-Credential`), CloudFront (`Signature`, `Policy`,
 * `Key-Pair-Id`), Azure SAS (`sig`), OAuth (`access_token`) and the usual `token`, `key`, `password`. A name
 * is hidden when it contains one of the words, or is one of the short names, ignoring case.
 */
const SECRET_WORDS = ["token", "signature", "secret", "password", "passwd", "credential", "key"];
const SECRET_NAMES = new Set(["sig", "auth", "policy"]);

function isSecretParam(name: string): boolean {
  let n = name.toLowerCase();
  try {
    n = decodeURIComponent(n);
  } catch {
    // A malformed escape is judged by its raw text.
  }
  return SECRET_NAMES.has(n) || SECRET_WORDS.some((w) => n.includes(w));
}

/**
 * A URL as it appears in text: a scheme and `//`, up to white space, a double quote, an angle bracket or a
 * backslash (so a URL inside a JSON string inside a JSON document stops before the escape of its closing quote).
 */
const URL_IN_TEXT = /[a-z][a-z0-9+.-]*:\/\/[^\s"<>\\]+/gi;
/** Up to the last `@` of the authority: a password with a raw `@` in it is hidden whole. */
const USER_INFO = /^([a-z][a-z0-9+.-]*:\/\/)[^/?#]*@/i;
const QUERY_PARAM = /([?&;#])([^=&#;?]+)=([^&#;']*)/g;

/**
 * One URL with its user info (`user:pass@`) and the values of secret query (or fragment) parameters replaced;
 * the rest is left as written.
 */
export function redactUrl(url: string): string {
  const cut = url.search(/[?#]/);
  const head = (cut < 0 ? url : url.slice(0, cut)).replace(USER_INFO, `$1${REDACTED}@`);
  const rest =
    cut < 0
      ? ""
      : url
          .slice(cut)
          .replace(QUERY_PARAM, (all, sep: string, name: string) =>
            isSecretParam(name) ? `${sep}${name}=${REDACTED}` : all,
          );
  return head + rest;
}

/** A copy of a URL without its user info: what is fetched (the credentials go in a header) or recorded. */
export function withoutUserInfo(url: URL): URL {
  const bare = new URL(url);
  bare.username = "";
  bare.password = "";
  return bare;
}

/**
 * Every URL in a text redacted: the one function through which every message, log line and status field that
 * may name a URL passes, so a credential given in a URL is sent but never printed or stored.
 */
export function redactUrls(text: string): string {
  return text.replace(URL_IN_TEXT, redactUrl);
}
