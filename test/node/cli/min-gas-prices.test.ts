import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { useFreeListenerPorts } from "@chaind/harness/free-listener-ports";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { chaind, NodeProcess } from "../helpers/chaind-process.js";

const COSMOS_MESSAGE = "set min gas price in app.toml or flag or env variable: error in app.toml";

function setPrice(home: string, line: string): void {
  const path = join(home, "config", "app.toml");
  const text = readFileSync(path, "utf8");
  expect(text).toMatch(/^minimum-gas-prices = .*$/m);
  writeFileSync(path, text.replace(/^minimum-gas-prices = .*$/m, line));
}

describe("minimum gas prices: nobody gets free txs by default", () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), "min-gas-"));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it("init writes an explicit price in the genesis' bond denom", async () => {
    const home = join(dir, "node");
    const r = await chaind(["init", "n0", "--chain-id", "gas-1", "--home", home]);
    expect(r.exitCode, r.stderr).toBe(0);
    const genesis = JSON.parse(readFileSync(join(home, "config", "genesis.json"), "utf8"));
    expect(genesis.app_state.staking.params.bond_denom).toBe("stake");
    expect(readFileSync(join(home, "config", "app.toml"), "utf8")).toMatch(
      /^minimum-gas-prices = "0\.025stake"$/m,
    );
  });

  it("start refuses an empty price with Cosmos' message naming app.toml, the flag and the variable; pre-upgrade still runs", async () => {
    const home = join(dir, "node");
    await chaind(["init", "n0", "--chain-id", "gas-1", "--home", home]);
    setPrice(home, 'minimum-gas-prices = ""');
    const env = { CHAIND_MINIMUM_GAS_PRICES: "" }; // an empty variable counts as unset, as in viper
    const refused = await chaind(["start", "--home", home], { env });
    expect(refused.exitCode).toBe(1);
    const line = refused.stderr.trim();
    expect(line.split("\n")).toHaveLength(1);
    expect(line).toContain(`Error: ${COSMOS_MESSAGE}`);
    expect(line).toContain(join(home, "config", "app.toml"));
    expect(line).toContain("--minimum-gas-prices");
    expect(line).toContain("CHAIND_MINIMUM_GAS_PRICES");
    // Nothing was opened: the database was never created.
    expect(() => readFileSync(join(home, "data", "application.db", "CURRENT"))).toThrow();

    // A home whose app.toml lacks the key reads as empty too; so does an empty flag.
    setPrice(home, "");
    expect((await chaind(["start", "--home", home])).stderr).toContain(COSMOS_MESSAGE);
    const emptyFlag = await chaind(["start", "--home", home, "--minimum-gas-prices", ""]);
    expect(emptyFlag.exitCode).toBe(1);
    expect(emptyFlag.stderr).toContain(COSMOS_MESSAGE);
    // A list of empty entries is not a way around it (Cosmos' ParseDecCoins refuses "," too), nor is a typo.
    for (const [price, why] of [
      [",", "invalid decimal coin expression: "],
      [" , ", "invalid decimal coin expression: "],
      ["0.025", "invalid decimal coin expression: 0.025"],
    ]) {
      const bad = await chaind(["start", "--home", home, "--minimum-gas-prices", price]);
      expect(bad.exitCode).toBe(1);
      expect(bad.stderr.trim()).toBe(
        `Error: cannot start node: minimum-gas-prices ${JSON.stringify(price)}: ${why}: invalid coins`,
      );
    }

    // Only start refuses: the supervisor's pre-upgrade check loads the same home.
    const pre = await chaind(["pre-upgrade", "--home", home]);
    expect(pre.exitCode, pre.stderr).toBe(0);
  });

  it("config set refuses a price that is not decimal coins, leaving app.toml as it was", async () => {
    const home = join(dir, "config-set");
    expect((await chaind(["init", "n", "--chain-id", "c-1", "--home", home])).exitCode).toBe(0);
    const before = readFileSync(join(home, "config", "app.toml"), "utf8");
    const bad = await chaind(["config", "set", "app", "minimum-gas-prices", "abc", "--home", home]);
    expect(bad.exitCode).toBe(1);
    expect(bad.stderr).toContain('minimum-gas-prices: expected decimal coins such as "0.025stake"');
    expect(bad.stderr).toContain('got "abc"');
    expect(readFileSync(join(home, "config", "app.toml"), "utf8")).toBe(before);
    const good = await chaind([
      "config",
      "set",
      "app",
      "minimum-gas-prices",
      "0.5stake,1uatom",
      "--home",
      home,
    ]);
    expect(good.exitCode, good.stderr).toBe(0);
    expect(readFileSync(join(home, "config", "app.toml"), "utf8")).toContain(
      'minimum-gas-prices = "0.5stake,1uatom"',
    );
  });

  it("the flag and CHAIND_MINIMUM_GAS_PRICES override app.toml, the flag first", async () => {
    const home = join(dir, "testnet");
    const made = await chaind(["testnet", "--home", home, "--keys", "1", "--block-time", "200ms"]);
    expect(made.exitCode, made.stderr).toBe(0);
    const validator = JSON.parse(made.stdout).keys[0].address as string;
    await useFreeListenerPorts(home);
    // app.toml alone would refuse to start: whatever runs below runs on the override.
    setPrice(home, 'minimum-gas-prices = ""');
    const freeSend = (rpc: string) =>
      chaind(["tx", "bank", "send", "alice", validator, "1stake", "--home", home, "--node", rpc, "--wait"]);

    const byEnv = new NodeProcess(home, [], { CHAIND_MINIMUM_GAS_PRICES: "0stake" });
    try {
      const rpc = (await byEnv.waitFor(/\brpc listening address=(\S+)/))[1];
      await byEnv.waitFor(/committed block .*height=2 /);
      const sent = await freeSend(rpc);
      expect(sent.exitCode, sent.stderr).toBe(0);
    } finally {
      byEnv.proc.kill("SIGTERM");
      await byEnv.proc;
    }

    const byFlag = new NodeProcess(home, ["--minimum-gas-prices", "1stake"], {
      CHAIND_MINIMUM_GAS_PRICES: "0stake",
    });
    try {
      const rpc = (await byFlag.waitFor(/\brpc listening address=(\S+)/))[1];
      await byFlag.waitFor(/committed block .*height=\d+ /);
      const refused = await freeSend(rpc);
      expect(refused.exitCode).not.toBe(0);
      // 1stake x 200000 gas.
      expect(refused.stderr).toMatch(/insufficient fees; got: {2}required: 200000stake/);
    } finally {
      byFlag.proc.kill("SIGTERM");
      await byFlag.proc;
    }
  });
});
