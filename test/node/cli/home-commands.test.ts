import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { bech32 } from "@scure/base";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { chaind } from "../helpers/chaind-process.js";

describe("home commands", () => {
  let dir: string;
  let home: string;

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), "chaind-cli-"));
    home = join(dir, "home");
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it("init writes every config file and refuses to overwrite", async () => {
    const r = await chaind(["init", "node0", "--chain-id", "cli-chain", "--home", home]);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ moniker: "node0", chain_id: "cli-chain" });
    const genesis = JSON.parse(readFileSync(join(home, "config/genesis.json"), "utf8"));
    expect(genesis.chain_id).toBe("cli-chain");
    expect(Object.keys(genesis.app_state)).toEqual(["upgrade", "auth", "bank", "staking", "gov"]);
    for (const f of ["app.toml", "config.toml", "client.toml", "priv_validator_key.json"]) {
      expect(readFileSync(join(home, "config", f), "utf8").length).toBeGreaterThan(0);
    }
    const again = await chaind(["init", "node0", "--chain-id", "cli-chain", "--home", home]);
    expect(again.exitCode).toBe(1);
    expect(again.stderr.trim()).toMatch(/^Error: genesis.json file already exists/);
    const forced = await chaind(["init", "node0", "--chain-id", "other", "--home", home, "--overwrite"]);
    expect(forced.exitCode).toBe(0);
  });

  it("keys and add-genesis-account build a funded genesis that validates", async () => {
    await chaind(["init", "node0", "--chain-id", "cli-chain", "--home", home]);
    const mnemonic =
      "abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about";
    const add = await chaind(
      ["keys", "add", "alice", "--recover", "--home", home, "--keyring-backend", "test"],
      { input: `${mnemonic}\n` },
    );
    expect(add.exitCode, add.stderr).toBe(0);
    const show = await chaind(["keys", "show", "alice", "-a", "--home", home, "--keyring-backend", "test"]);
    // The well-known Cosmos address of this mnemonic, re-encoded with our prefix.
    const cosmosBytes = bech32.fromWords(
      bech32.decode("cosmos19rl4cm2hmr8afy4kldpxz3fka4jguq0auqdal4").words,
    );
    expect(show.stdout.trim()).toBe(bech32.encode("sdk", bech32.toWords(cosmosBytes)));
    const fund = await chaind([
      "genesis",
      "add-genesis-account",
      "alice",
      "1000stake",
      "--home",
      home,
      "--keyring-backend",
      "test",
    ]);
    expect(fund.exitCode, fund.stderr).toBe(0);
    const genesis = JSON.parse(readFileSync(join(home, "config/genesis.json"), "utf8"));
    expect(genesis.app_state.bank.balances).toEqual([
      { address: show.stdout.trim(), coins: [{ denom: "stake", amount: "1000" }] },
    ]);
    const valid = await chaind(["genesis", "validate", "--home", home]);
    expect(valid.exitCode, valid.stderr).toBe(0);

    const twice = await chaind([
      "genesis",
      "add-genesis-account",
      "alice",
      "1stake",
      "--home",
      home,
      "--keyring-backend",
      "test",
    ]);
    expect(twice.exitCode).toBe(1);
    expect(twice.stderr).toMatch(/existing address/);
    const badCoins = await chaind([
      "genesis",
      "add-genesis-account",
      show.stdout.trim(),
      "12",
      "--home",
      home,
      "--append",
    ]);
    expect(badCoins.exitCode).toBe(1);
    expect(badCoins.stderr).toMatch(/failed to parse coins/);
  });

  it("genesis validate names the broken part", async () => {
    await chaind(["init", "node0", "--chain-id", "cli-chain", "--home", home]);
    const path = join(home, "config/genesis.json");
    const g = JSON.parse(readFileSync(path, "utf8"));
    g.app_state.bank.balances = [{ address: "sdk1notanaddress", coins: [{ denom: "stake", amount: "5" }] }];
    writeFileSync(path, JSON.stringify(g));
    const r = await chaind(["genesis", "validate", "--home", home]);
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toMatch(/invalid genesis balance address "sdk1notanaddress"/);
    writeFileSync(path, "{ not json");
    const r2 = await chaind(["genesis", "validate", "--home", home]);
    expect(r2.exitCode).toBe(1);
    expect(r2.stderr).toMatch(/invalid genesis .*genesis.json/);
  });

  it("genesis validate compares addresses as bytes: one account in lower- and upper-case bech32 is a duplicate, and a declared supply must be the balances' sum", async () => {
    await chaind(["init", "node0", "--chain-id", "cli-chain", "--home", home, "--overwrite"]);
    const path = join(home, "config/genesis.json");
    const g = JSON.parse(readFileSync(path, "utf8"));
    const lower = "sdk1qurswpc8qurswpc8qurswpc8qurswpc8x6td85";
    const upper = lower.toUpperCase();
    const five = [{ denom: "stake", amount: "5" }];
    const account = (address: string) => ({
      "@type": "/cosmos.auth.v1beta1.BaseAccount",
      address,
      pub_key: null,
      account_number: "0",
      sequence: "0",
    });
    g.app_state.bank.balances = [
      { address: lower, coins: five },
      { address: upper, coins: five },
    ];
    writeFileSync(path, JSON.stringify(g));
    const twice = await chaind(["genesis", "validate", "--home", home]);
    expect(twice.exitCode).toBe(1);
    expect(twice.stderr).toContain(`bank genesis: duplicate balance for address ${upper}`);
    g.app_state.bank.balances = [{ address: lower, coins: five }];
    g.app_state.auth.accounts = [account(lower), account(upper)];
    writeFileSync(path, JSON.stringify(g));
    const accounts = await chaind(["genesis", "validate", "--home", home]);
    expect(accounts.exitCode).toBe(1);
    expect(accounts.stderr).toContain(
      `auth genesis: duplicate account found in genesis state; address: ${upper}`,
    );
    g.app_state.auth.accounts = [account(lower)];
    g.app_state.bank.supply = [{ denom: "stake", amount: "10" }];
    writeFileSync(path, JSON.stringify(g));
    const supply = await chaind(["genesis", "validate", "--home", home]);
    expect(supply.exitCode).toBe(1);
    expect(supply.stderr).toContain("bank genesis: genesis supply is incorrect, expected 10stake got 5stake");
    g.app_state.bank.supply = five;
    writeFileSync(path, JSON.stringify(g));
    const ok = await chaind(["genesis", "validate", "--home", home]);
    expect(ok.exitCode, ok.stderr).toBe(0);
  });

  it("start on a home that does not exist fails with one clear line", async () => {
    const r = await chaind(["start", "--home", join(dir, "nope")]);
    expect(r.exitCode).toBe(1);
    expect(r.stderr.trim().split("\n")).toHaveLength(1);
    expect(r.stderr).toMatch(/cannot start node: cannot read \S*nope\/config: ENOENT/);
  });

  it("bad app.toml and config.toml values are named together, each with its file, key and expected form", async () => {
    await chaind(["init", "node0", "--chain-id", "cli-chain", "--home", home]);
    const app = join(home, "config/app.toml");
    writeFileSync(
      app,
      readFileSync(app, "utf8")
        .replace('pruning = "default"', 'pruning = "sometimes"')
        .replace("halt-height = 0", 'halt-height = "soon"'),
    );
    const node = join(home, "config/config.toml");
    writeFileSync(node, readFileSync(node, "utf8").replace('timeout_commit = "5s"', 'timeout_commit = "5"'));
    const r = await chaind(["start", "--home", home]);
    expect(r.exitCode).toBe(1);
    expect(r.stderr.trim().split("\n")).toEqual([
      `Error: cannot start node: ${app}: pruning: expected one of default, nothing, everything, custom, got "sometimes"`,
      `${app}: halt-height: expected a whole number ≥ 0, got "soon"`,
      `${node}: consensus.timeout_commit: expected a Go duration such as 300ms, 5s or 1m30s, got "5"`,
    ]);
  });
});
