import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { NodeRpcClient } from "@chaind/core/comet-rpc-client";
import { listenOnPickedPorts } from "@chaind/harness/free-listener-ports";
import { LineCollector } from "@chaind/harness/line-collector";
import { execa, type ResultPromise } from "execa";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { AddressCodec } from "../../../node/src/app/address-codec.js";
import {
  CHAIND_BIN,
  chaind,
  NodeProcess,
  startTestnet,
  stopNode,
  type TestnetKey,
  testchainBin,
} from "../helpers/chaind-process.js";
import { writeSendProposal } from "../helpers/gov-flow.js";

const CHAIN = "inplace-1";
const FEES = ["--gas-prices", "0.0001stake"];
const valoperOf = (address: string) =>
  new AddressCodec("sdkvaloper").toString(new AddressCodec("sdk").fromString(address));

/** A running `chaind in-place-testnet` (a form of start), its log lines collected. */
class TestnetProcess {
  readonly proc: ResultPromise;
  readonly out: LineCollector;
  constructor(home: string, args: string[], bin = CHAIND_BIN) {
    this.proc = execa("node", [bin, "in-place-testnet", ...args, "--home", home, "--skip-confirmation"], {
      reject: false,
      all: true,
      buffer: false,
    });
    this.out = new LineCollector(this.proc.all!);
  }
  async stop(): Promise<void> {
    this.proc.kill("SIGTERM");
    await this.proc;
  }
}

/** A copy of a stopped home with its own listener ports, as an operator would convert. */
function copyHome(from: string, to: string): string {
  cpSync(from, to, { recursive: true });
  listenOnPickedPorts(to);
  return to;
}

const chainIdIn = (home: string) =>
  JSON.parse(readFileSync(join(home, "config/genesis.json"), "utf8")).chain_id as string;

describe("chaind in-place-testnet", () => {
  let dir: string;
  let home: string;
  let keys: TestnetKey[];
  let height: number;
  let bobBalance: string;
  let appHashAtHeight: string | undefined;
  let running: TestnetProcess | undefined;
  const key = (name: string) => keys.find((k) => k.name === name)!;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "inplace-"));
    home = join(dir, "home");
    const started = await startTestnet(home, [
      ...["--chain-id", CHAIN, "--block-time", "100ms", "--keys", "2"],
      ...["--voting-period", "600s", "--deposit-period", "600s"],
    ]);
    keys = started.keys;
    const cli = (...args: string[]) => chaind([...args, "--home", home, "--node", started.rpc]);
    const sent = await cli(
      "tx",
      "bank",
      "send",
      "alice",
      key("bob").address,
      "12345stake",
      ...FEES,
      "--wait",
    );
    expect(sent.exitCode, sent.stderr).toBe(0);
    // A proposal in its (long) voting period: it must survive the conversion.
    const proposal = writeSendProposal(join(dir, "proposal.json"), {
      to: key("bob").address,
      stake: "7",
      title: "from the real chain",
      summary: "lives on in the testnet",
    });
    const submitted = await cli(
      "tx",
      "gov",
      "submit-proposal",
      proposal,
      "--from",
      "alice",
      ...FEES,
      "--wait",
    );
    expect(submitted.exitCode, submitted.stderr).toBe(0);
    const balance = await cli("q", "bank", "balance", key("bob").address, "stake", "-o", "json");
    expect(balance.exitCode, balance.stderr).toBe(0);
    bobBalance = JSON.parse(balance.stdout).balance.amount;
    await stopNode(started.node);
    const status = await chaind(["status", "--home", home]);
    height = Number(JSON.parse(status.stdout).sync_info.latest_block_height);
    expect(height).toBeGreaterThan(2);
    appHashAtHeight = started.node.committed().get(height);
    expect(appHashAtHeight).toMatch(/^[0-9A-F]{64}$/);
  }, 120_000);
  afterEach(async () => {
    await running?.stop();
    running = undefined;
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("refuses a running node, a bad operator, the same chain id and an empty upgrade name, each in one line", async () => {
    const copy = copyHome(home, join(dir, "refusals"));
    const refused = async (args: string[], re: RegExp) => {
      const r = await chaind(["in-place-testnet", ...args, "--home", copy, "--skip-confirmation"]);
      expect(r.exitCode, r.stderr).toBe(1);
      expect(r.stderr.trim()).toMatch(re);
      expect(r.stderr.trim().split("\n")).toHaveLength(1);
    };
    await refused(["test-1", "sdk1notanaddress"], /^Error: cannot convert: invalid operator address/);
    await refused([CHAIN, key("alice").address], /^Error: cannot convert: the new chain id must differ/);
    await refused(
      ["test-1", key("alice").address, "--trigger-testnet-upgrade", ""],
      /^Error: cannot convert: --trigger-testnet-upgrade needs an upgrade name/,
    );
    // Without --skip-confirmation it asks first, as the SDK does; anything but yes changes nothing.
    const declined = await chaind(["in-place-testnet", "test-1", key("alice").address, "--home", copy], {
      input: "n\n",
    });
    expect(declined.exitCode).toBe(1);
    expect(declined.stderr).toContain("cannot be undone. Do you want to continue? (y/n)");
    expect(declined.stderr).toMatch(/Error: aborted: nothing changed/);
    const node = new NodeProcess(copy);
    try {
      await node.waitFor(/committed block /);
      await refused(["test-1", key("alice").address], /^Error: cannot convert while the node runs: .*locked/);
    } finally {
      await stopNode(node);
    }
    // Nothing changed: the home still starts as the original chain.
    expect(chainIdIn(copy)).toBe(CHAIN);
    expect(readFileSync(join(copy, "config/client.toml"), "utf8")).toContain(`chain-id = "${CHAIN}"`);
  }, 90_000);

  it("makes a one-validator testnet the operator drives, with the original balances and proposals", async () => {
    const copy = copyHome(home, join(dir, "testnet"));
    const alice = key("alice").address;
    running = new TestnetProcess(copy, ["test-1", alice]);
    const rpc = (await running.out.waitFor(/\brpc listening address=(\S+)/, 60_000))[1];
    await running.out.waitFor(new RegExp(`committed block .*height=${height + 2} `), 60_000);
    const cli = (...args: string[]) => chaind([...args, "--home", copy, "--node", rpc]);
    expect(chainIdIn(copy)).toBe("test-1");
    expect(readFileSync(join(copy, "config/client.toml"), "utf8")).toContain('chain-id = "test-1"');
    const status = JSON.parse((await cli("status")).stdout);
    expect(status.node_info.network).toBe("test-1");

    // The original balances and proposals, as they were at the conversion height.
    const bob = await cli("q", "bank", "balance", key("bob").address, "stake", "-o", "json");
    expect(JSON.parse(bob.stdout).balance.amount).toBe(bobBalance);
    const old = JSON.parse((await cli("q", "gov", "proposal", "1", "-o", "json")).stdout);
    expect(JSON.stringify(old)).toContain("from the real chain");

    // One bonded validator: the operator's, signing with this home's key.
    const validators = JSON.parse((await cli("q", "staking", "validators", "-o", "json")).stdout)
      .validators as {
      operator_address: string;
      status: string;
    }[];
    const bonded = validators.filter((v) => v.status === "BOND_STATUS_BONDED");
    expect(bonded.map((v) => v.operator_address)).toEqual([valoperOf(alice)]);
    expect(validators.length).toBeGreaterThan(1);

    // The operator sends, proposes, votes alone and sees the proposal pass within the short voting period.
    const sent = await cli("tx", "bank", "send", "alice", key("bob").address, "5stake", ...FEES, "--wait");
    expect(sent.exitCode, sent.stderr).toBe(0);
    const proposal = writeSendProposal(join(dir, "testnet-proposal.json"), {
      to: key("bob").address,
      stake: "1",
      title: "on the testnet",
      summary: "passes with the operator's vote",
    });
    const submitted = await cli(
      "tx",
      "gov",
      "submit-proposal",
      proposal,
      "--from",
      "alice",
      ...FEES,
      "--wait",
    );
    expect(submitted.exitCode, submitted.stderr).toBe(0);
    const voted = await cli("tx", "gov", "vote", "2", "yes", "--from", "alice", ...FEES, "--wait");
    expect(voted.exitCode, voted.stderr).toBe(0);
    let passed = "";
    for (let i = 0; i < 120 && passed !== "PROPOSAL_STATUS_PASSED"; i++) {
      await new Promise((r) => setTimeout(r, 500));
      passed = JSON.parse((await cli("q", "gov", "proposal", "2", "-o", "json")).stdout).proposal?.status;
    }
    expect(passed).toBe("PROPOSAL_STATUS_PASSED");
    // The converted chain's blocks go on from the original height, under the new chain id.
    // The first testnet block names the original chain's app hash at the conversion height: the conversion is
    // in the app hash of that block, not rewritten into the old chain's.
    const block = await new NodeRpcClient(rpc).call<{
      block: { header: { chain_id: string; app_hash: string } };
    }>("block", { height: String(height + 1) });
    expect(block.block.header.chain_id).toBe("test-1");
    expect(block.block.header.app_hash).toBe(appHashAtHeight);
  }, 150_000);

  it("keeps a conversion the node did not get to apply for the next start, which applies it once", async () => {
    const copy = copyHome(home, join(dir, "pending"));
    const alice = key("alice").address;
    // start refuses an empty minimum gas price: the home is converted, but no testnet block is made.
    const stopped = await chaind([
      ...["in-place-testnet", "test-3", alice, "--home", copy, "--skip-confirmation"],
      ...["--minimum-gas-prices", ""],
    ]);
    expect(stopped.exitCode).toBe(1);
    expect(stopped.stderr).toMatch(/min gas price/);
    expect(chainIdIn(copy)).toBe("test-3");

    const first = new NodeProcess(copy);
    try {
      const rpc = (await first.waitFor(/\brpc listening address=(\S+)/))[1];
      await first.waitFor(/in-place testnet: the next block applies the conversion/);
      await first.waitFor(new RegExp(`committed block .*height=${height + 2} `), 60_000);
      const cli = (...args: string[]) => chaind([...args, "--home", copy, "--node", rpc]);
      const validators = JSON.parse((await cli("q", "staking", "validators", "-o", "json")).stdout)
        .validators as { operator_address: string; status: string }[];
      expect(
        validators.filter((v) => v.status === "BOND_STATUS_BONDED").map((v) => v.operator_address),
      ).toEqual([valoperOf(alice)]);
    } finally {
      await stopNode(first);
    }
    // Committed with block H+1, the pending conversion is gone: a restart does not apply it (nor mint) again.
    const again = new NodeProcess(copy);
    try {
      await again.waitFor(/committed block /);
      expect(again.lines.some((l) => /in-place testnet/.test(l))).toBe(false);
    } finally {
      await stopNode(again);
    }
  }, 120_000);

  it("with --trigger-testnet-upgrade halts at the next height for the new binary, which goes on", async () => {
    const v1Home = join(dir, "v1");
    const made = await chaind(["testnet", "--home", v1Home, "--chain-id", CHAIN, "--block-time", "100ms"], {
      bin: testchainBin("v1"),
    });
    expect(made.exitCode, made.stderr).toBe(0);
    const validator = (JSON.parse(made.stdout).keys as TestnetKey[]).find((k) => k.name === "alice")!;
    listenOnPickedPorts(v1Home);
    const v1 = new NodeProcess(v1Home, [], undefined, testchainBin("v1"));
    await v1.waitFor(/committed block .*height=3 /);
    await stopNode(v1);
    const copy = copyHome(v1Home, join(dir, "v1-testnet"));
    const at = Number(
      JSON.parse((await chaind(["status", "--home", copy])).stdout).sync_info.latest_block_height,
    );
    const halted = new TestnetProcess(
      copy,
      ["test-2", validator.address, "--trigger-testnet-upgrade", "v2"],
      testchainBin("v1"),
    );
    const exited = await halted.proc;
    expect(exited.exitCode).toBe(3);
    expect(halted.out.lines.join("\n")).toContain(`UPGRADE "v2" NEEDED at height: ${at + 1}`);
    const info = JSON.parse(readFileSync(join(copy, "data/upgrade-info.json"), "utf8"));
    expect(info).toMatchObject({ name: "v2", height: at + 1 });

    // What visor does at the halt: the plan's binary starts on the home, runs the handler and the conversion.
    const v2 = new NodeProcess(copy, [], undefined, testchainBin("v2"));
    try {
      const rpc = (await v2.waitFor(/\brpc listening address=(\S+)/))[1];
      await v2.waitFor(new RegExp(`committed block .*height=${at + 2} `), 60_000);
      const cli = (...args: string[]) =>
        chaind([...args, "--home", copy, "--node", rpc], { bin: testchainBin("v2") });
      const applied = JSON.parse((await cli("q", "upgrade", "applied", "v2", "-o", "json")).stdout);
      expect(Number(applied.header.height)).toBe(at + 1);
      expect(applied.header.chain_id).toBe("test-2");
      const validators = JSON.parse((await cli("q", "staking", "validators", "-o", "json")).stdout)
        .validators as {
        operator_address: string;
        status: string;
      }[];
      expect(
        validators.filter((v) => v.status === "BOND_STATUS_BONDED").map((v) => v.operator_address),
      ).toEqual([valoperOf(validator.address)]);
      expect(existsSync(join(copy, "data/application.db"))).toBe(true);
    } finally {
      await stopNode(v2);
    }
  }, 150_000);
});
