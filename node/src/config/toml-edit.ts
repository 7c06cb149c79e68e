/**
 * Sets one key of a TOML file's text to a new literal, leaving every other line (comments, order, spacing, keys
 * no table knows) as it was. The key's line is replaced; a key the file lacks is added at the end of its section
 * (a missing section is added at the end of the file).
 */
export function setTomlLine(text: string, section: string | null, name: string, literal: string): string {
  const lines = text.split("\n");
  const header = /^\s*\[\s*([^\]\s]+)\s*\]/;
  const keyLine = new RegExp(`^(\\s*)(${escapeRe(name)}|"${escapeRe(name)}")\\s*=`);
  let inSection = section === null;
  let sectionEnd = -1;
  // Top-level keys end at the first table header; a section's at the next one.
  let topEnd = -1;
  for (let i = 0; i < lines.length; i++) {
    const h = lines[i].match(header);
    if (h) {
      if (topEnd < 0) topEnd = i;
      if (inSection && sectionEnd < 0 && (section === null || h[1] !== section)) sectionEnd = i;
      inSection = h[1] === section;
      continue;
    }
    const k = inSection ? lines[i].match(keyLine) : null;
    if (k) {
      lines[i] = `${k[1]}${name} = ${literal}`;
      return lines.join("\n");
    }
  }
  const added = `${name} = ${literal}`;
  if (section === null) {
    const at = topEnd < 0 ? lines.length : topEnd;
    lines.splice(at, 0, added, ...(topEnd < 0 ? [] : [""]));
  } else if (inSection || sectionEnd >= 0) {
    const at = sectionEnd >= 0 ? sectionEnd : lines.length;
    // After the section's last non-blank line.
    let i = at;
    while (i > 0 && lines[i - 1].trim() === "") i--;
    lines.splice(i, 0, added);
  } else {
    while (lines.length > 0 && lines[lines.length - 1] === "") lines.pop();
    lines.push("", `[${section}]`, added, "");
  }
  return lines.join("\n");
}

function escapeRe(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}
