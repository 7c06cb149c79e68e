/** What Go's url.PathEscape leaves as it is: unreserved characters and the reserved ones a path segment allows. */
const KEPT = /^[A-Za-z0-9\-_.~$&+:=@]$/;

/**
 * Go's `url.PathEscape`, which cosmovisor applies to a plan name for its `upgrades/<name>` folder: every UTF-8
 * byte but letters, digits, `-_.~` and `$&+:=@` becomes `%XX` (upper-case hex), a space `%20`. It differs from
 * encodeURIComponent, which escapes `: @ + = & $` and leaves `! * ' ( )`.
 */
export function goPathEscape(s: string): string {
  let out = "";
  for (const ch of s) {
    if (KEPT.test(ch)) out += ch;
    else for (const b of Buffer.from(ch, "utf8")) out += `%${b.toString(16).toUpperCase().padStart(2, "0")}`;
  }
  return out;
}
