import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  chaind,
  type NodeProcess,
  startTestnet,
  stopNode,
  type TestnetKey,
} from "../helpers/chaind-process.js";

const PASSPHRASE = "argument checks passphrase";
const FILE_KEYRING = ["--keyring-backend", "file"];

/**
 * The SDK's CLI checks a tx command's addresses and coins, then asks the node for the account, and only then
 * opens the keyring to sign. A bad argument must cost nothing: no prompt, no request to the node, no fee.
 */
describe("tx commands check their arguments, then reach the node, before any passphrase prompt", () => {
  let dir: string;
  let home: string;
  let node: NodeProcess;
  let rpc: string;
  let alice: TestnetKey;
  let bob: TestnetKey;
  let valoper: string;
  let dave: string;
  /** A stand-in node that answers nothing and counts what it is sent. */
  let recorder: Server;
  let recorderUrl: string;
  const requests: string[] = [];
  const cli = (args: string[], input = "") => chaind([...args, "--home", home], { input });

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "tx-arguments-"));
    home = join(dir, "home");
    const started = await startTestnet(home, ["--chain-id", "args-1", "--block-time", "200ms"]);
    node = started.node;
    rpc = started.rpc;
    alice = started.keys.find((k) => k.name === "alice")!;
    bob = started.keys.find((k) => k.name === "bob")!;
    const genesis = JSON.parse(readFileSync(join(home, "config", "genesis.json"), "utf8"));
    valoper = genesis.app_state.staking.validators[0].operator_address;
    // An encrypted key: signing with it asks for the passphrase, so a prompt shows on stderr.
    const added = await cli(
      ["keys", "add", "dave", ...FILE_KEYRING, "-o", "json"],
      `${PASSPHRASE}\n`.repeat(2),
    );
    expect(added.exitCode, added.stderr).toBe(0);
    dave = JSON.parse(added.stdout).address;
    const funded = await cli([
      ...["tx", "bank", "send", "alice", dave, "100000stake", "--gas-prices", "0.0001stake", "--wait"],
      ...["--node", rpc],
    ]);
    expect(funded.exitCode, funded.stderr).toBe(0);
    recorder = createServer((req, res) => {
      requests.push(`${req.method} ${req.url}`);
      res.writeHead(500).end();
    });
    await new Promise<void>((resolve) => recorder.listen(0, "127.0.0.1", resolve));
    recorderUrl = `http://127.0.0.1:${(recorder.address() as AddressInfo).port}`;
  }, 120_000);
  afterAll(async () => {
    await stopNode(node);
    await new Promise((resolve) => recorder?.close(resolve));
    rmSync(dir, { recursive: true, force: true });
  });

  async function account(address: string): Promise<{ sequence: string; balance: string }> {
    const acc = await cli(["query", "auth", "account", address, "--node", rpc, "-o", "json"]);
    const bal = await cli(["query", "bank", "balances", address, "--node", rpc, "-o", "json"]);
    expect(acc.exitCode, acc.stderr).toBe(0);
    return {
      sequence: JSON.parse(acc.stdout).account.sequence,
      balance: JSON.parse(bal.stdout).balances.find((c: { denom: string }) => c.denom === "stake").amount,
    };
  }

  async function heightNow(): Promise<number> {
    const status = await cli(["status", "--node", rpc]);
    return Number(JSON.parse(status.stdout).sync_info.latest_block_height);
  }

  it("refuses `tx bank send alice sdk1bad 1stake` before signing: nothing broadcast, no fee charged", async () => {
    const before = await account(alice.address);
    const r = await cli([
      ...["tx", "bank", "send", "alice", "sdk1bad", "1stake", "--gas-prices", "0.0001stake"],
      ...["--node", rpc],
    ]);
    expect(r.exitCode).toBe(1);
    expect(r.stderr.trim()).toBe(
      "Error: invalid address: decoding bech32 failed: invalid length 7, expected 8..1023 characters",
    );
    // Two more blocks: a tx that had gone out would be in one of them, with its fee and sequence taken.
    const h = await heightNow();
    await node.waitFor(new RegExp(`committed block .*height=${h + 2} `));
    expect(await account(alice.address)).toEqual(before);
    const sent = await cli([
      ...["query", "txs", "--query", `message.sender='${alice.address}'`, "--node", rpc, "-o", "json"],
    ]);
    expect(sent.exitCode, sent.stderr).toBe(0);
    // alice's only tx is the one that funded dave.
    expect(JSON.parse(sent.stdout).total_count).toBe("1");
  });

  it("every module's tx command refuses a bad address or coin before any prompt or request, in the SDK's words", async () => {
    const proposal = join(dir, "proposal.json");
    writeFileSync(
      proposal,
      JSON.stringify({ messages: [], deposit: "10stake,5stake", title: "t", summary: "s" }),
    );
    const validatorFile = join(dir, "validator.json");
    writeFileSync(validatorFile, JSON.stringify({ amount: "ten" }));
    const cases: [string[], string][] = [
      [
        ["bank", "send", "dave", "sdk1bad", "1stake"],
        "invalid address: decoding bech32 failed: invalid length 7",
      ],
      [["bank", "send", "dave", bob.address, "1.5stake"], "invalid coin amount 1.5stake: an amount is"],
      [["bank", "send", "dave", bob.address, "12x"], "invalid decimal coin expression: 12x"],
      [["bank", "send", "dave", "", "1stake"], "empty address string is not allowed"],
      [
        ["bank", "send", "dave", bob.address.replace(/.$/, (c) => (c === "q" ? "p" : "q")), "1stake"],
        "invalid address: decoding bech32 failed: invalid checksum",
      ],
      [
        ["bank", "send", "dave", bob.address, "1stake", "--fees", "1x"],
        "invalid decimal coin expression: 1x",
      ],
      [
        ["staking", "delegate", bob.address, "1stake", "--from", "dave"],
        "invalid address: invalid Bech32 prefix; expected sdkvaloper, got sdk",
      ],
      [["staking", "delegate", valoper, "stake", "--from", "dave"], "invalid decimal coin expression: stake"],
      [
        ["staking", "redelegate", valoper, "sdkvaloper1bad", "1stake", "--from", "dave"],
        "invalid address: decoding bech32 failed",
      ],
      [
        ["staking", "unbond", valoper, "1stake,", "--from", "dave"],
        "invalid decimal coin expression: 1stake,",
      ],
      [
        ["staking", "create-validator", validatorFile, "--from", "dave"],
        "invalid decimal coin expression: ten",
      ],
      [["gov", "deposit", "1", "1 stake x", "--from", "dave"], "invalid decimal coin expression: 1 stake x"],
      [
        ["gov", "submit-proposal", proposal, "--from", "dave"],
        "parsed decimal coins are invalid: duplicate denomination stake",
      ],
      [
        [
          "upgrade",
          "software-upgrade",
          "v2",
          "--title",
          "t",
          "--summary",
          "s",
          "--upgrade-height",
          "99",
        ].concat(["--no-validate", "--deposit", "5", "--from", "dave"]),
        "invalid decimal coin expression: 5",
      ],
    ];
    // Each is a process of its own against the recording stand-in; they run at once.
    const results = await Promise.all(
      cases.map(([args]) => cli(["tx", ...args, ...FILE_KEYRING, "--node", recorderUrl])),
    );
    for (const [i, [args, message]] of cases.entries()) {
      const r = results[i];
      const what = args.join(" ");
      expect(r.exitCode, what).toBe(1);
      expect(r.stderr, what).not.toContain("passphrase");
      expect(r.stderr.trim().split("\n"), what).toHaveLength(1);
      expect(r.stderr.trim(), what).toMatch(
        new RegExp(`^Error: ${message.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}`),
      );
    }
    expect(requests).toEqual([]);
  }, 120_000);

  it("asks the node for the account before the passphrase: a node that is down is reported with no prompt", async () => {
    const gen = await cli([
      ...["tx", "bank", "send", "dave", bob.address, "1stake", "--fees", "20stake", "--generate-only"],
      ...FILE_KEYRING,
    ]);
    expect(gen.exitCode, gen.stderr).toBe(0);
    const unsigned = join(dir, "unsigned.json");
    writeFileSync(unsigned, gen.stdout);
    const down = "http://127.0.0.1:1";
    const commands = [
      ["tx", "bank", "send", "dave", bob.address, "1stake", "--fees", "20stake"],
      ["tx", "bank", "send", "dave", bob.address, "1stake", "--gas", "auto", "--gas-prices", "0.0001stake"],
      ["tx", "staking", "delegate", valoper, "1stake", "--from", "dave", "--fees", "20stake"],
      ["tx", "sign", unsigned, "--from", "dave"],
    ];
    // The passphrase is there to be read: a CLI that asked for it would take it and only then fail on the node.
    const results = await Promise.all(
      commands.map((args) => cli([...args, ...FILE_KEYRING, "--node", down], `${PASSPHRASE}\n`)),
    );
    for (const [i, r] of results.entries()) {
      const what = commands[i].join(" ");
      expect(r.exitCode, what).toBe(1);
      expect(r.stderr, what).not.toContain("passphrase");
      expect(r.stderr.trim(), what).toMatch(
        /^Error: (gas estimation failed: )?cannot reach node at http:\/\/127\.0\.0\.1:1 /,
      );
    }
  });

  it("with the node up, the same encrypted key signs once the passphrase is given, after the account query", async () => {
    const before = await account(dave);
    const r = await cli(
      [
        ...[
          "tx",
          "staking",
          "delegate",
          valoper,
          "1000stake",
          "--from",
          "dave",
          "--gas-prices",
          "0.0001stake",
        ],
        ...["--wait", "-o", "json", ...FILE_KEYRING, "--node", rpc],
      ],
      `${PASSPHRASE}\n`,
    );
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/^Enter keyring passphrase:/);
    const after = await account(dave);
    expect(Number(after.sequence)).toBe(Number(before.sequence) + 1);
    // 1000stake delegated and a fee of 0.0001stake x 200000 gas.
    expect(BigInt(after.balance)).toBe(BigInt(before.balance) - 1000n - 20n);
  });
});
