import { type ConfigTable, defaultCell, type Entries, markdownTable } from "@chaind/core/config-table";
import { APP_TOML } from "./app-config.js";
import { CLIENT_TOML } from "./client-config.js";
import { CONFIG_TOML } from "./node-config.js";

function referenceTable(table: ConfigTable<Entries>): string {
  return markdownTable(table, [
    {
      title: "key",
      cell: (r) => (r.section ? `\`[${r.section.section}] ${r.setting.name}\`` : `\`${r.key}\``),
    },
    { title: "form", cell: (r) => r.setting.type.expected },
    { title: "default", cell: defaultCell },
    { title: "unit", cell: (r) => r.setting.unit ?? "" },
    { title: "meaning", cell: (r) => r.setting.doc },
  ]);
}

/** The generated regions of docs/CONFIG.md, by region id: one reference table per file. */
export function nodeConfigDocRegions(): Record<string, string> {
  return Object.fromEntries([APP_TOML, CONFIG_TOML, CLIENT_TOML].map((t) => [t.name, referenceTable(t)]));
}
