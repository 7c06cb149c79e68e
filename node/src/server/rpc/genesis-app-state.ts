import { readFile, stat } from "node:fs/promises";

/**
 * The `app_state` of genesis.json as JSON text, for RPC `genesis`: parsed once for each version of the file and
 * kept as text (16 MiB at most: `genesis` refuses larger files first), so a batch of `genesis` calls costs string
 * copies on the node's one thread, not a parse each. The node itself keeps no app state in memory (ChainNode).
 */
export class GenesisAppState {
  private cached: { version: string; text: Promise<string> } | null = null;

  constructor(private readonly path: string) {}

  async text(): Promise<string> {
    const { ino, size, mtimeMs } = await stat(this.path);
    const version = `${ino}:${size}:${mtimeMs}`;
    if (this.cached?.version !== version) {
      const text = readFile(this.path, "utf8").then((raw) =>
        JSON.stringify((JSON.parse(raw) as { app_state?: unknown }).app_state ?? {}),
      );
      const entry = { version, text };
      this.cached = entry;
      // A failed read is not kept: the next call tries again.
      text.catch(() => {
        if (this.cached === entry) this.cached = null;
      });
    }
    return this.cached.text;
  }
}
