import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { listenOnPickedPorts } from "@chaind/harness/free-listener-ports";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { chaind, NodeProcess } from "../helpers/chaind-process.js";

/** Issue 32: `query bank` has SDK 0.50's commands, answering what REST answers. */
describe("chaind query bank: SDK 0.50's commands", () => {
  let dir: string;
  let home: string;
  let node: NodeProcess;
  let rpc: string;
  let rest: string;
  let alice: string;
  const cli = async (...args: string[]) => {
    const r = await chaind(["query", "bank", ...args, "--home", home, "--node", rpc, "-o", "json"]);
    expect(r.exitCode, `${args.join(" ")}: ${r.stderr}`).toBe(0);
    return JSON.parse(r.stdout);
  };
  const get = async (path: string) =>
    (await (await fetch(`${rest}${path}`)).json()) as Record<string, unknown>;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "bank-query-cli-"));
    home = join(dir, "home");
    const made = await chaind(["testnet", "--home", home, "--chain-id", "bank-1", "--keys", "1"]);
    expect(made.exitCode, made.stderr).toBe(0);
    alice = JSON.parse(made.stdout).keys.find((k: { name: string }) => k.name === "alice").address;
    listenOnPickedPorts(home);
    node = new NodeProcess(home);
    rpc = (await node.waitFor(/\brpc listening address=(\S+)/))[1];
    rest = (await node.waitFor(/\bapi listening address=(\S+)/))[1];
    await node.waitFor(/committed block .*height=2 /);
  }, 60_000);
  afterAll(async () => {
    node?.proc.kill("SIGTERM");
    await node?.proc;
    rmSync(dir, { recursive: true, force: true });
  });

  it("balance, balances, spendable-balances, total (total-supply), total-supply-of, params, denom metadata", async () => {
    const [one, all, spendable, total, totalAlias, of, params, metas] = await Promise.all([
      cli("balance", alice, "stake"),
      cli("balances", alice),
      cli("spendable-balances", alice),
      cli("total"),
      cli("total-supply"),
      cli("total-supply-of", "stake"),
      cli("params"),
      cli("denoms-metadata"),
    ]);
    expect(one).toEqual({ balance: { denom: "stake", amount: "1000000000000" } });
    expect(all.balances).toEqual([{ denom: "stake", amount: "1000000000000" }]);
    expect(spendable.balances).toEqual(all.balances);
    // The supply moves only with fees and rewards, which this idle chain has none of: REST agrees.
    expect(total.supply).toEqual((await get("/sdk/bank/v1beta1/supply")).supply);
    expect(totalAlias.supply).toEqual(total.supply);
    expect(of.amount).toEqual(total.supply.find((c: { denom: string }) => c.denom === "stake"));
    expect(params.params).toEqual((await get("/sdk/bank/v1beta1/params")).params);
    expect(metas.metadatas).toEqual([]);
  });

  it("refuses a malformed address before asking the node, and names an unknown denom's metadata as the node does", async () => {
    const bad = await chaind([
      "query",
      "bank",
      "balance",
      "sdk1bad",
      "stake",
      "--home",
      home,
      "--node",
      "http://127.0.0.1:1",
    ]);
    expect(bad.exitCode).toBe(1);
    expect(bad.stderr).toMatch(/^Error: invalid address: decoding bech32 failed/);
    const missing = await chaind([
      "query",
      "bank",
      "denom-metadata",
      "nothing",
      "--home",
      home,
      "--node",
      rpc,
    ]);
    expect(missing.exitCode).toBe(1);
    expect(missing.stderr).toMatch(/nothing/);
  });
});
