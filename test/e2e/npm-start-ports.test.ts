import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { freePort } from "@chaind/harness/free-listener-ports";
import { LineCollector } from "@chaind/harness/line-collector";
import { execa, type ResultPromise } from "execa";
import { afterAll, describe, expect, it } from "vitest";
import { chaind } from "../node/helpers/chaind-process.js";

const START_SCRIPT = join(import.meta.dirname, "../../dist/scripts/start-localnet.js");

/** Issue 32: `npm start` can be told its ports, by flag or environment, so it runs beside another chain. */
describe("npm start -- --rpc-port / LOCALNET_*_PORT", () => {
  const dir = mkdtempSync(join(tmpdir(), "npm-start-ports-"));
  let proc: ResultPromise | undefined;
  afterAll(async () => {
    if (proc?.pid) {
      try {
        process.kill(-proc.pid, "SIGKILL");
      } catch {
        // Already stopped.
      }
      await proc;
    }
    rmSync(dir, { recursive: true, force: true });
  });

  it("listens on the ports given, the home's client.toml follows the RPC port, and a bad port is refused", async () => {
    const bad = await execa("node", [START_SCRIPT, "--dir", dir, "--rpc-port", "99999"], { reject: false });
    expect(bad.exitCode).toBe(2);
    expect(bad.stderr).toBe(
      'npm start: --rpc-port (or LOCALNET_RPC_PORT) must be a port number 1-65535, got "99999"',
    );

    const [rpc, api, grpc] = [await freePort(), await freePort(), await freePort()];
    proc = execa(
      "node",
      [START_SCRIPT, "--dir", dir, "--rpc-port", String(rpc), "--grpc-port", String(grpc)],
      {
        env: { ...process.env, LOCALNET_API_PORT: String(api) },
        detached: true,
        reject: false,
        all: true,
        buffer: false,
      },
    );
    const out = new LineCollector(proc.all!);
    await out.waitFor(/Ctrl-C stops it/, 60_000);
    const summary = out.lines.join("\n");
    expect(summary).toMatch(new RegExp(`RPC +http://127\\.0\\.0\\.1:${rpc}\\b`));
    expect(summary).toMatch(new RegExp(`REST +http://(localhost|127\\.0\\.0\\.1):${api}\\b`));
    expect(summary).toMatch(new RegExp(`gRPC +(localhost|127\\.0\\.0\\.1):${grpc}\\b`));
    // No --node: the CLI reads the moved RPC port from the home's client.toml.
    const status = await chaind(["status", "--home", join(dir, "node")]);
    expect(status.exitCode, status.stderr).toBe(0);
    expect(JSON.parse(status.stdout).node_info.network).toBe("localnet-1");
    process.kill(-proc.pid!, "SIGINT");
    await proc;
  }, 90_000);
});
