import { join } from "node:path";
import { BenchProcess } from "./bench-process.js";

/** Starts one of the bare ceiling servers (compiled next to this file) and answers its port. */
export async function startBareServer(
  script: "bare-http-server.js" | "bare-grpc-server.js",
  args: string[] = [],
): Promise<{ port: number; process: BenchProcess }> {
  const p = new BenchProcess("node", [join(import.meta.dirname, script), ...args]);
  const { match } = await p.waitFor(/^listening (\d+)/, 30_000);
  return { port: Number(match[1]), process: p };
}
