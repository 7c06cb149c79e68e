const TOML_ESCAPES: Record<string, string> = {
  "\\": "\\\\",
  '"': '\\"',
  "\b": "\\b",
  "\f": "\\f",
  "\n": "\\n",
  "\r": "\\r",
  "\t": "\\t",
};

/** A string as go-toml v2 writes it: a literal string, or a basic one when it holds a quote or a control. */
export function goTomlString(s: string): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: the controls a TOML literal string cannot hold (all but tab).
  if (!/[\x00-\x08\x0a-\x1f\x7f']/.test(s)) return `'${s}'`;
  let out = "";
  for (const ch of s) {
    const c = ch.charCodeAt(0);
    if (TOML_ESCAPES[ch]) out += TOML_ESCAPES[ch];
    else if (c < 0x20 || c === 0x7f) out += `\\u00${c.toString(16).toUpperCase().padStart(2, "0")}`;
    else out += ch;
  }
  return `"${out}"`;
}
