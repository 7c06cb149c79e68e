import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parse } from "smol-toml";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { chaind } from "../helpers/chaind-process.js";

type Network = {
  chain_id: string;
  nodes: {
    name: string;
    home: string;
    node_id: string;
    validator: { address: string; operator_address: string; stake: string };
    listen: Record<string, string>;
  }[];
  keys: { name: string; address: string }[];
};
type GenTx = {
  body: { messages: { pubkey: { key: string }; value: { amount: string }; validator_address: string }[] };
};

const toml = (path: string) => parse(readFileSync(path, "utf8")) as Record<string, Record<string, unknown>>;

/** `chaind testnet --validators N`: the homes of a network, checked file by file (the e2e network test runs them). */
describe("chaind testnet --validators", () => {
  let dir: string;
  let net: Network;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "testnet-network-"));
    const r = await chaind([
      "testnet",
      "--validators",
      "3",
      "--output-dir",
      join(dir, "net"),
      "--chain-id",
      "net-1",
      "--stake",
      "3000000,2000000,1000000",
      "--keys",
      "2",
      "--starting-port",
      "30000",
    ]);
    expect(r.exitCode, r.stderr).toBe(0);
    net = JSON.parse(r.stdout) as Network;
  }, 120_000);

  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("writes one home per validator, sharing one genesis that holds each validator's gentx with its own stake", () => {
    expect(readdirSync(join(dir, "net")).sort()).toEqual(["node0", "node1", "node2"]);
    const genesis = readFileSync(join(dir, "net", "node0", "config", "genesis.json"), "utf8");
    for (const n of net.nodes)
      expect(readFileSync(join(n.home, "config", "genesis.json"), "utf8")).toBe(genesis);
    const doc = JSON.parse(genesis) as { chain_id: string; app_state: { genutil: { gen_txs: GenTx[] } } };
    expect(doc.chain_id).toBe("net-1");
    const txs = doc.app_state.genutil.gen_txs.map((t) => t.body.messages[0]);
    expect(txs).toHaveLength(3);
    net.nodes.forEach((n, i) => {
      const key = JSON.parse(readFileSync(join(n.home, "config", "priv_validator_key.json"), "utf8")) as {
        pub_key: { value: string };
      };
      const tx = txs.find((t) => t.validator_address === n.validator.operator_address);
      expect(tx?.pubkey.key, n.name).toBe(key.pub_key.value);
      expect(tx?.value.amount).toBe(["3000000", "2000000", "1000000"][i]);
      expect(n.validator.stake).toBe(`${tx?.value.amount}stake`);
    });
  });

  it("lists every other validator as a persistent peer, on ports no two nodes share, with CometBFT as the engine", () => {
    const ports: string[] = [];
    for (const n of net.nodes) {
      const config = toml(join(n.home, "config", "config.toml"));
      const app = toml(join(n.home, "config", "app.toml"));
      expect((config as Record<string, unknown>).consensus_engine).toBe("cometbft");
      expect(config.p2p.allow_duplicate_ip).toBe(true);
      expect(config.p2p.addr_book_strict).toBe(false);
      const peers = String(config.p2p.persistent_peers).split(",").sort();
      const others = net.nodes.filter((o) => o !== n).map((o) => `${o.node_id}@${o.listen.p2p.slice(6)}`);
      expect(peers).toEqual(others.sort());
      ports.push(
        String(config.p2p.laddr),
        String(config.rpc.laddr),
        String((config as Record<string, unknown>).proxy_app),
        String(app.api.address),
        String(app.grpc.address),
        String(app.telemetry.address),
      );
      expect(app.api.enable).toBe(true);
    }
    const numbers = ports.map((p) => Number(p.split(":").pop()));
    expect(new Set(numbers).size).toBe(18);
    expect(Math.min(...numbers)).toBe(30000);
    expect(ports.every((p) => p.includes("127.0.0.1"))).toBe(true);
  });

  it("puts the test keys in every home's keyring beside that home's own validator key", async () => {
    const alice = net.keys.find((k) => k.name === "alice")!;
    for (const n of net.nodes) {
      const r = await chaind([
        "keys",
        "list",
        "--home",
        n.home,
        "--keyring-backend",
        "test",
        "--output",
        "json",
      ]);
      const keys = JSON.parse(r.stdout) as { name: string; address: string }[];
      expect(keys.find((k) => k.name === "alice")?.address).toBe(alice.address);
      expect(keys.find((k) => k.name === "validator")?.address).toBe(n.validator.address);
    }
  });

  it("refuses a stake list that does not fit, ports past 65535, and an existing network, writing nothing new", async () => {
    const out = join(dir, "bad");
    const count = await chaind([
      "testnet",
      "--validators",
      "3",
      "--output-dir",
      out,
      "--stake",
      "1000000,2000000",
    ]);
    expect(count.exitCode).toBe(1);
    expect(count.stderr).toContain("--stake names 2 amounts for 3 validators");
    expect(existsSync(out)).toBe(false);

    const ports = await chaind([
      "testnet",
      "--validators",
      "2",
      "--output-dir",
      out,
      "--starting-port",
      "65530",
    ]);
    expect(ports.exitCode).toBe(1);
    expect(ports.stderr).toMatch(/node1's \w+ port 655\d\d is outside 1-65535/);
    expect(existsSync(out)).toBe(false);

    const again = await chaind(["testnet", "--validators", "3", "--output-dir", join(dir, "net")]);
    expect(again.exitCode).toBe(1);
    expect(again.stderr).toContain("genesis.json file already exists");
    const genesis = JSON.parse(readFileSync(join(dir, "net", "node0", "config", "genesis.json"), "utf8"));
    expect(genesis.chain_id).toBe("net-1");

    // Only a later home exists: the earlier ones are not written before the refusal.
    const partly = join(dir, "partly");
    mkdirSync(join(partly, "node2", "config"), { recursive: true });
    writeFileSync(join(partly, "node2", "config", "genesis.json"), "{}");
    const later = await chaind(["testnet", "--validators", "3", "--output-dir", partly]);
    expect(later.exitCode).toBe(1);
    expect(later.stderr).toContain(`genesis.json file already exists: ${join(partly, "node2")}`);
    expect(existsSync(join(partly, "node0"))).toBe(false);
  });
});
