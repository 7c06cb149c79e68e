import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { create, type DescMessage, type MessageInitShape, toBinary } from "@bufbuild/protobuf";
import { NodeRpcClient } from "@chaind/core/comet-rpc-client";
import { listenOnPickedPorts } from "@chaind/harness/free-listener-ports";
import { QueryAccountRequestSchema } from "@chaind/proto/sdk/auth/v1beta1/query_pb";
import {
  QueryAllBalancesRequestSchema,
  QueryTotalSupplyRequestSchema,
} from "@chaind/proto/sdk/bank/v1beta1/query_pb";
import {
  QueryDepositsRequestSchema,
  QueryProposalsRequestSchema,
  QueryVotesRequestSchema,
} from "@chaind/proto/sdk/gov/v1/query_pb";
import {
  QueryDelegatorDelegationsRequestSchema,
  QueryPoolRequestSchema,
  QueryValidatorsRequestSchema,
} from "@chaind/proto/sdk/staking/v1beta1/query_pb";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AddressCodec } from "../../../node/src/app/address-codec.js";
import { chaind, NodeProcess, startTestnet, stopNode, type TestnetKey } from "../helpers/chaind-process.js";

const CHAIN = "export-1";
const FEES = ["--gas-prices", "0.0001stake"];

import { GOV_ADDRESS as GOV, writeSendProposal } from "../helpers/gov-flow.js";

/** A query's answer bytes (hex) at a height (0: latest), so two chains' answers compare exactly. */
async function ask<I extends DescMessage>(
  rpc: NodeRpcClient,
  path: string,
  input: I,
  req: MessageInitShape<I>,
  height = 0,
): Promise<string> {
  const r = await rpc.query(path, toBinary(input, create(input, req)), height);
  return Buffer.from(r.value).toString("hex");
}

describe("chaind export", () => {
  let dir: string;
  let home: string;
  let node: NodeProcess | undefined;
  let forkNode: NodeProcess | undefined;
  let keys: TestnetKey[];
  let rpc: string;
  let height: number;
  let valoper: string;
  const cli = (...args: string[]) => chaind([...args, "--home", home, "--node", rpc]);
  const key = (name: string) => keys.find((k) => k.name === name)!;

  /** Sends a tx the CLI built, signed and broadcast, and waits for it in a block; answers that block. */
  async function committed(sent: Awaited<ReturnType<typeof cli>>): Promise<number> {
    expect(sent.exitCode, sent.stderr).toBe(0);
    const { txhash } = JSON.parse(sent.stdout);
    const r = await new NodeRpcClient(rpc).waitForTx(txhash, 20_000);
    expect(r.tx_result.code, r.tx_result.log).toBe(0);
    return Number(r.height);
  }

  /** Builds a tx of `messages` (proto JSON) from `from`, signs it with the CLI and broadcasts it. */
  async function sendMessages(from: string, messages: unknown[]): Promise<number> {
    const gen = await cli("tx", "bank", "send", from, GOV, "1stake", "--generate-only", "--fees", "60stake");
    expect(gen.exitCode, gen.stderr).toBe(0);
    const doc = JSON.parse(gen.stdout);
    doc.body.messages = messages;
    doc.auth_info.fee.gas_limit = "600000";
    const unsigned = join(dir, `unsigned-${from}.json`);
    const signed = join(dir, `signed-${from}.json`);
    writeFileSync(unsigned, JSON.stringify(doc));
    const s = await cli("tx", "sign", unsigned, "--from", from, "--output-document", signed);
    expect(s.exitCode, s.stderr).toBe(0);
    return committed(await cli("tx", "broadcast", signed, "-o", "json"));
  }

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "export-"));
    home = join(dir, "home");
    ({ node, rpc, keys } = await startTestnet(home, [
      ...["--chain-id", CHAIN, "--block-time", "100ms", "--keys", "2"],
      ...["--voting-period", "600s", "--deposit-period", "600s"],
    ]));
    const client = new NodeRpcClient(rpc);
    const validators = await client.query(
      "/sdk.staking.v1beta1.Query/Validators",
      toBinary(QueryValidatorsRequestSchema, create(QueryValidatorsRequestSchema)),
    );
    valoper = new AddressCodec("sdkvaloper").toString(
      new AddressCodec("sdk").fromString(key("validator").address),
    );
    expect(Buffer.from(validators.value).toString("latin1")).toContain(valoper);

    await committed(
      await cli("tx", "bank", "send", "alice", key("bob").address, "12345stake", ...FEES, "-o", "json"),
    );
    const amount = { denom: "stake", amount: "5000000" };
    await sendMessages("bob", [
      {
        "@type": "/cosmos.staking.v1beta1.MsgDelegate",
        delegator_address: key("bob").address,
        validator_address: valoper,
        amount,
      },
      {
        "@type": "/cosmos.staking.v1beta1.MsgUndelegate",
        delegator_address: key("bob").address,
        validator_address: valoper,
        amount: { denom: "stake", amount: "2000000" },
      },
    ]);
    const proposal = writeSendProposal(join(dir, "proposal.json"), {
      to: key("alice").address,
      stake: "1",
      title: "fork me",
      summary: "a proposal that lives on in the fork",
    });
    await committed(
      await cli("tx", "gov", "submit-proposal", proposal, "--from", "alice", ...FEES, "-o", "json"),
    );
    height = await committed(
      await cli("tx", "gov", "vote", "1", "yes", "--from", "bob", ...FEES, "-o", "json"),
    );
  }, 90_000);
  afterAll(async () => {
    await stopNode(node);
    await stopNode(forkNode);
    rmSync(dir, { recursive: true, force: true });
  });

  it("refuses while the node runs, with one line", async () => {
    const r = await chaind(["export", "--home", home]);
    expect(r.exitCode).toBe(1);
    expect(r.stderr.trim()).toMatch(
      /^Error: cannot export while the node is running: database folder .* is locked/,
    );
    expect(r.stderr.trim().split("\n")).toHaveLength(1);
  });

  it("exports height N of the stopped node; a fresh home started from it answers as the old chain did at N", async () => {
    await stopNode(node);
    const out = join(dir, "exported.json");
    const r = await chaind(["export", "--home", home, "--height", String(height), "--output-document", out]);
    expect(r.exitCode, r.stderr).toBe(0);
    const doc = JSON.parse(readFileSync(out, "utf8"));
    expect(Object.keys(doc)).toEqual(
      expect.arrayContaining([
        "app_name",
        "app_version",
        "genesis_time",
        "chain_id",
        "initial_height",
        "app_hash",
        "app_state",
        "consensus_params",
        "validators",
      ]),
    );
    expect(doc.chain_id).toBe(CHAIN);
    // CometBFT's shape: stock cometbft reads the file as it is.
    expect(doc.initial_height).toBe(String(height + 1));
    expect(Object.keys(doc.app_state)).toEqual(["auth", "bank", "gov", "staking", "upgrade"]);
    expect(doc.app_state.upgrade).toEqual({});
    expect(doc.app_state.gov.proposals).toHaveLength(1);
    expect(doc.app_state.gov.votes).toHaveLength(1);
    expect(doc.app_state.staking.unbonding_delegations).toHaveLength(1);
    expect(doc.validators).toHaveLength(1);
    expect(doc.validators[0].pub_key.type).toBe("tendermint/PubKeyEd25519");
    expect(doc.consensus_params.block.max_bytes).toBe("22020096");
    // The same export goes to stdout without --output-document.
    const stdout = await chaind(["export", "--home", home, "--height", String(height)]);
    expect(JSON.parse(stdout.stdout)).toEqual(doc);

    // The fork: a new home with the old validator key and the exported genesis.
    const fork = join(dir, "fork");
    const made = await chaind(["testnet", "--home", fork, "--chain-id", CHAIN, "--block-time", "100ms"]);
    expect(made.exitCode, made.stderr).toBe(0);
    copyFileSync(join(home, "config/priv_validator_key.json"), join(fork, "config/priv_validator_key.json"));
    copyFileSync(out, join(fork, "config/genesis.json"));
    listenOnPickedPorts(fork);
    forkNode = new NodeProcess(fork);
    const forkRpc = new NodeRpcClient((await forkNode.waitFor(/\brpc listening address=(\S+)/))[1]);
    await forkNode.waitFor(new RegExp(`committed block .*height=${height + 2} `));
    const status = await forkRpc.call<{ sync_info: { earliest_block_height: string } }>("status");
    expect(status.sync_info.earliest_block_height).toBe(String(height + 1));

    // The old chain, restarted, answers at N; the fork (no txs since) at its latest.
    node = new NodeProcess(home);
    const oldRpc = new NodeRpcClient((await node.waitFor(/\brpc listening address=(\S+)/))[1]);
    const queries: [string, DescMessage, object][] = [
      ["/sdk.bank.v1beta1.Query/TotalSupply", QueryTotalSupplyRequestSchema, {}],
      ["/sdk.staking.v1beta1.Query/Validators", QueryValidatorsRequestSchema, {}],
      ["/sdk.staking.v1beta1.Query/Pool", QueryPoolRequestSchema, {}],
      ["/sdk.gov.v1.Query/Proposals", QueryProposalsRequestSchema, {}],
      ["/sdk.gov.v1.Query/Votes", QueryVotesRequestSchema, { proposalId: 1n }],
      ["/sdk.gov.v1.Query/Deposits", QueryDepositsRequestSchema, { proposalId: 1n }],
    ];
    for (const k of keys) {
      queries.push([
        "/sdk.bank.v1beta1.Query/AllBalances",
        QueryAllBalancesRequestSchema,
        { address: k.address },
      ]);
      queries.push(["/sdk.auth.v1beta1.Query/Account", QueryAccountRequestSchema, { address: k.address }]);
      queries.push([
        "/sdk.staking.v1beta1.Query/DelegatorDelegations",
        QueryDelegatorDelegationsRequestSchema,
        { delegatorAddr: k.address },
      ]);
    }
    for (const [path, schema, req] of queries) {
      const was = await ask(oldRpc, path, schema, req as never, height);
      const label = `${path} ${Object.values(req).map(String).join(" ")}`;
      expect(await ask(forkRpc, path, schema, req as never), label).toBe(was);
    }
  });

  it("--modules-to-export keeps only the named modules; an unknown one is refused", async () => {
    // The previous test restarted the old node; the database is free again once it stops.
    await stopNode(node);
    node = undefined;
    const only = await chaind([
      "export",
      "--home",
      home,
      "--height",
      String(height),
      "--modules-to-export",
      "auth,bank",
    ]);
    expect(only.exitCode, only.stderr).toBe(0);
    expect(Object.keys(JSON.parse(only.stdout).app_state)).toEqual(["auth", "bank"]);
    const unknown = await chaind(["export", "--home", home, "--modules-to-export", "bank,distribution"]);
    expect(unknown.exitCode).toBe(1);
    expect(unknown.stderr.trim()).toMatch(
      /^Error: cannot export .*: module distribution does not exist; the app's modules are upgrade, auth, bank, staking, gov$/,
    );
  });

  it("refuses a height beyond the latest and one below the first, with one line each", async () => {
    const future = await chaind(["export", "--home", home, "--height", "999999"]);
    expect(future.exitCode).toBe(1);
    expect(future.stderr.trim()).toMatch(
      /^Error: cannot export .*: cannot load state at height 999999; it is in the future \(latest height: \d+\)/,
    );
    expect(future.stderr.trim().split("\n")).toHaveLength(1);
    const zero = await chaind(["export", "--home", home, "--height", "0"]);
    expect(zero.exitCode).toBe(1);
    expect(zero.stderr.trim()).toBe(
      "Error: invalid --height 0: a block height of at least 1, or -1 for the latest",
    );
  });

  it("--for-zero-height starts heights over: initial_height 0, unbonding creation heights 0; others than --jail-allowed-addrs are jailed", async () => {
    const plain = JSON.parse((await chaind(["export", "--home", home, "--height", String(height)])).stdout);
    const ubd = plain.app_state.staking.unbonding_delegations[0];
    expect(Number(ubd.entries[0].creation_height)).toBeGreaterThan(0);
    expect(plain.app_state.staking.validators[0].jailed).toBe(false);

    const zero = await chaind(["export", "--home", home, "--height", String(height), "--for-zero-height"]);
    expect(zero.exitCode, zero.stderr).toBe(0);
    const z = JSON.parse(zero.stdout);
    expect(z.initial_height).toBe("0");
    expect(z.app_state.staking.unbonding_delegations[0].entries[0].creation_height).toBe("0");
    expect(z.app_state.staking.unbonding_delegations[0].entries[0].completion_time).toBe(
      ubd.entries[0].completion_time,
    );
    expect(z.app_state.staking.validators[0].unbonding_height).toBe("0");
    expect(z.app_state.staking.validators[0].jailed).toBe(false);

    const allowed = await chaind([
      "export",
      "--home",
      home,
      "--for-zero-height",
      "--jail-allowed-addrs",
      valoper,
    ]);
    expect(JSON.parse(allowed.stdout).app_state.staking.validators[0].jailed).toBe(false);
    const other = new AddressCodec("sdkvaloper").toString(
      new AddressCodec("sdk").fromString(key("bob").address),
    );
    const jailed = await chaind([
      "export",
      "--home",
      home,
      "--for-zero-height",
      "--jail-allowed-addrs",
      other,
    ]);
    expect(jailed.exitCode, jailed.stderr).toBe(0);
    const j = JSON.parse(jailed.stdout);
    expect(j.app_state.staking.validators[0].jailed).toBe(true);
    // A jailed validator signs no blocks: it leaves the consensus validators.
    expect(j.validators).toEqual([]);
  });
});
