import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { listenOnPickedPorts } from "@chaind/harness/free-listener-ports";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { chaind, NodeProcess, testchainBin } from "../helpers/chaind-process.js";

// fixtures/testchain/v2 adds the `counter` module, whose query command lives in the fixture alone
// (counter-cli.ts): nothing in node/src/cli knows of it.
describe("a fixture app's module brings its own commands", () => {
  const bin = testchainBin("v2");
  let dir: string;
  let home: string;
  let node: NodeProcess;
  let rpc: string;
  const cli = (...args: string[]) => chaind([...args, "--home", home, "--node", rpc], { bin });

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "module-commands-"));
    home = join(dir, "home");
    const made = await chaind(
      ["testnet", "--home", home, "--chain-id", "counter-1", "--block-time", "200ms"],
      {
        bin,
      },
    );
    expect(made.exitCode, made.stderr).toBe(0);
    listenOnPickedPorts(home);
    node = new NodeProcess(home, [], undefined, bin);
    rpc = (await node.waitFor(/\brpc listening address=(\S+)/))[1];
    await node.waitFor(/committed block .*height=4 /);
  });
  afterAll(async () => {
    node?.proc.kill("SIGTERM");
    await node?.proc;
    rmSync(dir, { recursive: true, force: true });
  });

  it("lists `query counter` in the fixture's help, beside the standard modules, and not in chaind's", async () => {
    const help = await chaind(["query", "--help"], { bin });
    expect(help.exitCode, help.stderr).toBe(0);
    expect(help.stdout).toMatch(/query counter +Querying commands for the counter module/);
    for (const m of ["auth", "bank", "gov", "upgrade"])
      expect(help.stdout).toMatch(new RegExp(`query ${m} +\\S`));
    const standard = await chaind(["query", "--help"]);
    expect(standard.stdout).toMatch(/query bank +\S/);
    expect(standard.stdout).not.toContain("query counter");
    const leaf = await chaind(["query", "counter", "--help"], { bin });
    expect(leaf.stdout).toMatch(/query counter count +Blocks counted since the module joined the chain/);
  });

  it("answers `query counter count` from the running node, at the latest or a given height", async () => {
    const at = async (height: number) => {
      const r = await cli("query", "counter", "count", "--height", String(height), "-o", "json");
      expect(r.exitCode, r.stderr).toBe(0);
      return Number(JSON.parse(r.stdout).count);
    };
    // The module counts one per block since genesis, so each height holds one more than the one before.
    const second = await at(2);
    expect(second).toBeGreaterThan(0);
    expect(await at(3)).toBe(second + 1);
    expect(await at(4)).toBe(second + 2);
    expect(await at(0)).toBeGreaterThanOrEqual(second + 2);
    const text = await cli("query", "counter", "count", "--height", "3", "-o", "text");
    // Cosmos prints text as YAML: a uint64 is a JSON string, so it is quoted.
    expect(text.stdout.trim()).toBe(`count: "${second + 1}"`);
  });

  it("fails a module command with the CLI's one-line error when the node cannot answer", async () => {
    const r = await chaind(["query", "counter", "count", "--home", home, "--node", "127.0.0.1:1"], { bin });
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toMatch(/^Error: cannot reach node at http:\/\/127\.0\.0\.1:1 .*; is it running/);
    expect(r.stderr.trim().split("\n")).toHaveLength(1);
  });
});
