import { generateKeyPairSync } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AddressCodec } from "../../../node/src/app/address-codec.js";
import {
  chaind,
  type NodeProcess,
  startTestnet,
  stopNode,
  type TestnetKey,
} from "../helpers/chaind-process.js";

/** A fresh ed25519 consensus key as `chaind comet show-validator` prints one. */
function consensusKeyJson(): { "@type": string; key: string } {
  const spki = generateKeyPairSync("ed25519").publicKey.export({ format: "der", type: "spki" });
  return { "@type": "/cosmos.crypto.ed25519.PubKey", key: spki.subarray(-32).toString("base64") };
}

describe("chaind query staking / tx staking: the SDK's staking commands against a running node", () => {
  let dir: string;
  let home: string;
  let node: NodeProcess;
  let rpc: string;
  let api: string;
  let alice: TestnetKey;
  let bob: TestnetKey;
  let genesisValoper: string;
  let bobValoper: string;
  const cli = (...args: string[]) => chaind([...args, "--home", home, "--node", rpc]);
  const json = async (...args: string[]) => {
    const r = await cli(...args, "-o", "json");
    expect(r.exitCode, `${args.join(" ")}: ${r.stderr}`).toBe(0);
    return JSON.parse(r.stdout);
  };
  const tx = async (...args: string[]) => {
    const r = await cli("tx", "staking", ...args, "--gas-prices", "0.0001stake", "--wait", "-o", "json");
    expect(r.exitCode, `${args.join(" ")}: ${r.stderr}`).toBe(0);
    expect(JSON.parse(r.stdout).code).toBe(0);
  };
  const rest = async (path: string) => (await fetch(`${api}${path}`)).json();

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "staking-cli-"));
    home = join(dir, "home");
    const started = await startTestnet(home, ["--chain-id", "staking-1", "--block-time", "200ms"]);
    node = started.node;
    rpc = started.rpc;
    api = (await node.waitFor(/\bapi listening address=(\S+)/))[1];
    alice = started.keys.find((k) => k.name === "alice")!;
    bob = started.keys.find((k) => k.name === "bob")!;
    const genesis = JSON.parse(readFileSync(join(home, "config", "genesis.json"), "utf8"));
    genesisValoper = genesis.app_state.staking.validators[0].operator_address;
  }, 60_000);
  afterAll(async () => {
    await stopNode(node);
    rmSync(dir, { recursive: true, force: true });
  });

  it("lists the validators, the pool and the params, as JSON and as the SDK's text", async () => {
    const { validators, pagination } = await json("query", "staking", "validators");
    expect(validators).toHaveLength(1);
    expect(validators[0]).toMatchObject({ status: "BOND_STATUS_BONDED", jailed: false });
    expect(pagination).toEqual({ next_key: null, total: "0" });
    expect(validators[0].operator_address).toBe(genesisValoper);
    expect((await json("query", "staking", "validators", "--status", "unbonded")).validators).toEqual([]);
    const one = await json("query", "staking", "validator", genesisValoper);
    expect(one.validator.operator_address).toBe(genesisValoper);

    const pool = await json("query", "staking", "pool");
    expect(pool.pool).toEqual({ not_bonded_tokens: "0", bonded_tokens: validators[0].tokens });
    const params = await cli("query", "staking", "params");
    expect(params.exitCode, params.stderr).toBe(0);
    expect(params.stdout).toContain("params:\n  bond_denom: stake\n");
    expect(params.stdout).toMatch(/^ {2}unbonding_time: 1814400s$/m);
  });

  it("delegates, unbonds and redelegates; each record is queried as the node's REST gateway serves it", async () => {
    const bonded = async () => BigInt((await json("query", "staking", "pool")).pool.bonded_tokens);
    const bondedBefore = await bonded();
    await tx("delegate", genesisValoper, "1000stake", "--from", "alice");
    const d = await json("query", "staking", "delegation", alice.address, genesisValoper);
    expect(d.delegation_response).toEqual({
      delegation: {
        delegator_address: alice.address,
        validator_address: genesisValoper,
        shares: "1000.000000000000000000",
      },
      balance: { denom: "stake", amount: "1000" },
    });
    // The same query service as REST: the same answer, field for field.
    expect(d).toEqual(
      await rest(`/sdk/staking/v1beta1/validators/${genesisValoper}/delegations/${alice.address}`),
    );

    await tx("unbond", genesisValoper, "300stake", "--from", "alice");
    const u = await json("query", "staking", "unbonding-delegation", alice.address, genesisValoper);
    expect(u.unbond.entries).toHaveLength(1);
    expect(u.unbond.entries[0]).toMatchObject({ initial_balance: "300", balance: "300" });
    expect(u).toEqual(
      await rest(
        `/sdk/staking/v1beta1/validators/${genesisValoper}/delegations/${alice.address}/unbonding_delegation`,
      ),
    );
    const all = await json("query", "staking", "unbonding-delegations", alice.address);
    expect(all.unbonding_responses).toEqual([u.unbond]);
    expect((await json("query", "staking", "delegations", alice.address)).delegation_responses).toEqual([
      expect.objectContaining({ balance: { denom: "stake", amount: "700" } }),
    ]);
    const pool = (await json("query", "staking", "pool")).pool;
    expect(BigInt(pool.bonded_tokens)).toBe(bondedBefore + 700n);
    expect(pool.not_bonded_tokens).toBe("300");

    // A second validator, from the SDK's JSON file, to redelegate to.
    const file = join(dir, "validator.json");
    const consensusKey = consensusKeyJson();
    writeFileSync(
      file,
      JSON.stringify({
        pubkey: consensusKey,
        amount: "5000000stake",
        moniker: "bobs-node",
        website: "https://bob.example",
        security: "sec@bob.example",
        details: "a second validator",
        "commission-rate": "0.1",
        "commission-max-rate": "0.2",
        "commission-max-change-rate": "0.01",
        "min-self-delegation": "1",
      }),
    );
    // The message carries the whole file (the chain keeps the moniker and the commission of the description).
    const unsigned = await json(
      "tx",
      "staking",
      "create-validator",
      file,
      "--from",
      "bob",
      "--generate-only",
    );
    const operator = new AddressCodec("sdkvaloper").toString(new AddressCodec("sdk").fromString(bob.address));
    expect(unsigned.body.messages).toEqual([
      expect.objectContaining({
        "@type": "/cosmos.staking.v1beta1.MsgCreateValidator",
        description: {
          moniker: "bobs-node",
          identity: "",
          website: "https://bob.example",
          security_contact: "sec@bob.example",
          details: "a second validator",
        },
        min_self_delegation: "1",
        delegator_address: "",
        validator_address: operator,
        pubkey: consensusKey,
        value: { denom: "stake", amount: "5000000" },
      }),
    ]);
    await tx("create-validator", file, "--from", "bob");
    const validators = (await json("query", "staking", "validators")).validators;
    const mine = validators.find(
      (v: { description: { moniker: string } }) => v.description.moniker === "bobs-node",
    );
    bobValoper = mine.operator_address;
    // The operator address is the signer's account under the valoper prefix.
    expect(bobValoper).toBe(operator);
    expect(mine).toMatchObject({
      tokens: "5000000",
      status: "BOND_STATUS_BONDED",
      consensus_pubkey: { key: consensusKey.key },
      commission: {
        commission_rates: {
          rate: "0.100000000000000000",
          max_rate: "0.200000000000000000",
          max_change_rate: "0.010000000000000000",
        },
      },
    });
    const self = await json("query", "staking", "delegation", bob.address, bobValoper);
    expect(self.delegation_response.balance).toEqual({ denom: "stake", amount: "5000000" });

    await tx("redelegate", genesisValoper, bobValoper, "200stake", "--from", "alice");
    const reds = await json("query", "staking", "redelegations", alice.address);
    expect(reds.redelegation_responses).toHaveLength(1);
    expect(reds.redelegation_responses[0].redelegation).toMatchObject({
      delegator_address: alice.address,
      validator_src_address: genesisValoper,
      validator_dst_address: bobValoper,
    });
    expect(reds.redelegation_responses[0].entries[0].balance).toBe("200");
    const one = await json("query", "staking", "redelegation", alice.address, genesisValoper, bobValoper);
    expect(one.redelegation_responses).toEqual(reds.redelegation_responses);
    const delegations = (await json("query", "staking", "delegations", alice.address)).delegation_responses;
    expect(delegations.map((r: { balance: { amount: string } }) => r.balance.amount).sort()).toEqual([
      "200",
      "500",
    ]);
    // About twenty CLI runs, each a fresh process on a shared machine.
  }, 180_000);

  it("refuses a create-validator file that misses what the SDK requires, in its words, before signing", async () => {
    const base = {
      pubkey: consensusKeyJson(),
      amount: "1000stake",
      moniker: "x",
      "commission-rate": "0.1",
      "commission-max-rate": "0.2",
      "commission-max-change-rate": "0.01",
      "min-self-delegation": "1",
    };
    const cases: [Record<string, unknown>, RegExp][] = [
      [{ ...base, amount: undefined }, /^Error: must specify amount of coins to bond$/],
      [{ ...base, pubkey: undefined }, /^Error: must specify the JSON encoded pubkey$/],
      [{ ...base, moniker: "" }, /^Error: must specify the moniker name$/],
      [
        { ...base, "commission-max-rate": undefined },
        /^Error: must specify all validator commission parameters$/,
      ],
      [{ ...base, "min-self-delegation": undefined }, /^Error: must specify minimum self delegation$/],
      [
        { ...base, "min-self-delegation": "-1" },
        /^Error: minimum self delegation must be a positive integer/,
      ],
      [{ ...base, "commission-rate": "ten" }, /^Error: invalid commission rate "ten": not a decimal$/],
      [
        { ...base, pubkey: { "@type": "/cosmos.crypto.ed25519.PubKey", key: "AAAA" } },
        /^Error: invalid pubkey .*32 bytes, got 3$/,
      ],
      [{ ...base, comission: "0.1" }, /^Error: validator file .*: unknown field comission/],
    ];
    const results = await Promise.all(
      cases.map(([doc], i) => {
        const file = join(dir, `bad-validator-${i}.json`);
        writeFileSync(file, JSON.stringify(doc));
        return cli("tx", "staking", "create-validator", file, "--from", "carol", "--fees", "20stake");
      }),
    );
    for (const [i, [, re]] of cases.entries()) {
      expect(results[i].exitCode, re.source).toBe(1);
      expect(results[i].stderr.trim(), re.source).toMatch(re);
    }
    expect((await json("query", "staking", "validators")).validators).toHaveLength(2);
  }, 120_000);

  it("refuses a query address of the wrong kind before asking the node, and reports what the node cannot find", async () => {
    const wrong = await cli("query", "staking", "validator", alice.address);
    expect(wrong.exitCode).toBe(1);
    expect(wrong.stderr.trim()).toBe(
      "Error: invalid address: invalid Bech32 prefix; expected sdkvaloper, got sdk",
    );
    const none = await cli("query", "staking", "unbonding-delegation", bob.address, genesisValoper);
    expect(none.exitCode).toBe(1);
    expect(none.stderr.trim()).toMatch(
      new RegExp(
        `^Error: .*unbonding delegation with delegator ${bob.address} not found for validator ${genesisValoper}`,
      ),
    );
    // yargs wraps the usage column beside the descriptions: read that column alone, its lines joined.
    const usages = (help: string, firstDescription: string) => {
      const lines = help.split("\n");
      const width = lines.find((l) => l.includes(firstDescription))!.indexOf(firstDescription);
      return lines.map((l) => l.slice(0, width).trim()).join(" ");
    };
    const help = usages((await chaind(["query", "staking", "--help"])).stdout, "All validators");
    for (const c of [
      "validators",
      "validator <validator-addr>",
      "delegation <delegator-addr> <validator-addr>",
      "delegations <delegator-addr>",
      "unbonding-delegation <delegator-addr> <validator-addr>",
      "unbonding-delegations <delegator-addr>",
      "redelegations <delegator-addr> [src-validator-addr] [dst-validator-addr]",
      "pool",
      "params",
    ])
      expect(help).toContain(`chaind query staking ${c} `);
    const txHelp = usages((await chaind(["tx", "staking", "--help"])).stdout, "Create a new validator");
    for (const c of [
      "create-validator <validator-file>",
      "delegate <validator-addr> <amount>",
      "redelegate <src-validator-addr> <dst-validator-addr> <amount>",
      "unbond <validator-addr> <amount>",
    ])
      expect(txHelp).toContain(`chaind tx staking ${c} `);
  });
});
